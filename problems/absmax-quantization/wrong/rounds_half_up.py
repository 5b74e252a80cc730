# expect: wrong_answer
# why: rounds with floor(v + 0.5) (half up, as in C) instead of round-half-to-even, so exact
#      halves such as 2.5 become 3 instead of 2
import torch


def absmax_quantize(x, bits):
    qmax = 2 ** (bits - 1) - 1
    absmax = x.abs().max()
    scale = absmax / qmax if absmax > 0 else torch.ones((), dtype=x.dtype)
    ints = torch.clamp(torch.floor(x / scale + 0.5), -qmax, qmax).to(torch.int32)
    dequantized = ints.to(x.dtype) * scale
    return scale, ints, dequantized, ((x - dequantized) ** 2).mean()
