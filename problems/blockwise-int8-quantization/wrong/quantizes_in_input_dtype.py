# expect: wrong_answer
# why: computes the scale and block / scale in x's own dtype: for fp16 and bf16 inputs the scale
#      is rounded to 11 or 8 bits and the quotients land on the wrong side of .5; widen to fp32 first
import torch


def blockwise_int8_quantize(x, block_size):
    flat = x.reshape(-1)
    n = flat.numel()
    nb = -(-n // block_size)
    padded = torch.zeros(nb * block_size, dtype=x.dtype)
    padded[:n] = flat
    blocks = padded.view(nb, block_size)
    scales = blocks.abs().amax(dim=1) / 127
    safe = torch.where(scales > 0, scales, 1.0)
    q = torch.clamp(torch.round(blocks / safe[:, None]), -127, 127)
    scales = scales.float()
    deq = q.float() * scales[:, None]
    return (q.to(torch.int8).view(-1)[:n].reshape(x.shape), scales,
            deq.view(-1)[:n].reshape(x.shape))
