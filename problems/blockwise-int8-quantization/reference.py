import torch


def blockwise_int8_quantize(x, block_size):
    flat = x.reshape(-1).to(torch.float32)  # fp16 / bf16 inputs are widened before any arithmetic
    n = flat.numel()
    codes = torch.zeros(n, dtype=torch.int8)
    scales = torch.zeros(-(-n // block_size), dtype=torch.float32)
    dequantized = torch.zeros(n, dtype=torch.float32)
    for b, start in enumerate(range(0, n, block_size)):
        block = flat[start:start + block_size]  # the last block may be shorter
        scale = block.abs().max() / 127
        scales[b] = scale
        if scale > 0:  # an all-zero block keeps scale 0 and codes 0
            q = torch.clamp(torch.round(block / scale), -127, 127)
            codes[start:start + block_size] = q.to(torch.int8)
            dequantized[start:start + block_size] = q * scale
    return codes.reshape(x.shape), scales, dequantized.reshape(x.shape)
