# expect: wrong_answer
# why: uses qmax = 2 ** (bits - 1) (8 for 4-bit, the negative end of the int4 range) as the
#      scale's divisor; the symmetric range is [-7, 7]
import torch


def absmax_quantize(x, bits):
    qmax = 2 ** (bits - 1)
    absmax = x.abs().max()
    scale = absmax / qmax if absmax > 0 else torch.ones((), dtype=x.dtype)
    ints = torch.clamp(torch.round(x / scale), -qmax, qmax - 1).to(torch.int32)
    dequantized = ints.to(x.dtype) * scale
    return scale, ints, dequantized, ((x - dequantized) ** 2).mean()
