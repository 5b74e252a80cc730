import torch


def absmax_quantize(x: torch.Tensor, bits: int):
    qmax = 2 ** (bits - 1) - 1
    absmax = x.abs().max()
    # An all-zero tensor has no range to spread over: any scale restores it; the convention is 1.
    scale = absmax / qmax if absmax > 0 else torch.ones((), dtype=x.dtype)
    ints = torch.clamp(torch.round(x / scale), -qmax, qmax).to(torch.int32)
    dequantized = ints.to(x.dtype) * scale
    mse = ((x - dequantized) ** 2).mean()
    return scale, ints, dequantized, mse
