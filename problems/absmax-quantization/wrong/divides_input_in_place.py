# expect: wrong_answer
# why: divides x by the scale in place to save a copy and multiplies it back afterwards; the
#      outputs are right, but x / s * s is not bit-exact in floating point, so the caller's
#      weights come back changed
import torch


def absmax_quantize(x, bits):
    qmax = 2 ** (bits - 1) - 1
    absmax = x.abs().max()
    scale = absmax / qmax if absmax > 0 else torch.ones((), dtype=x.dtype)
    x.div_(scale)
    ints = torch.clamp(torch.round(x), -qmax, qmax).to(torch.int32)
    x.mul_(scale)
    dequantized = ints.to(x.dtype) * scale
    return scale, ints, dequantized, ((x - dequantized) ** 2).mean()
