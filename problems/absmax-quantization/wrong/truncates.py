# expect: wrong_answer
# why: casts x / scale to int without rounding, which truncates toward zero (0.7 -> 0)
import torch


def absmax_quantize(x, bits):
    qmax = 2 ** (bits - 1) - 1
    absmax = x.abs().max()
    scale = absmax / qmax if absmax > 0 else torch.ones((), dtype=x.dtype)
    ints = torch.clamp(x / scale, -qmax, qmax).to(torch.int32)
    dequantized = ints.to(x.dtype) * scale
    return scale, ints, dequantized, ((x - dequantized) ** 2).mean()
