# expect: wrong_answer
# why: takes the scale from max(x) instead of max(|x|); right while the largest magnitude is
#      positive, wrong (even a negative scale) when the extreme value is negative
import torch


def absmax_quantize(x, bits):
    qmax = 2 ** (bits - 1) - 1
    top = x.max()
    scale = top / qmax if top != 0 else torch.ones((), dtype=x.dtype)
    ints = torch.clamp(torch.round(x / scale), -qmax, qmax).to(torch.int32)
    dequantized = ints.to(x.dtype) * scale
    return scale, ints, dequantized, ((x - dequantized) ** 2).mean()
