# expect: wrong_answer
# why: no special case for an all-zero tensor: the scale is 0 and x / scale is 0/0 = NaN
import torch


def absmax_quantize(x, bits):
    qmax = 2 ** (bits - 1) - 1
    scale = x.abs().max() / qmax
    ints = torch.clamp(torch.round(x / scale), -qmax, qmax).to(torch.int32)
    dequantized = ints.to(x.dtype) * scale
    return scale, ints, dequantized, ((x - dequantized) ** 2).mean()
