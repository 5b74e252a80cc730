# expect: wrong_answer
# why: rounds with floor(v + 0.5), as C's lround-style code often does, instead of
#      round-half-to-even; only values that land exactly on a half step (2.5 -> 3, not 2) differ
import torch


def zero_point_quantize(x):
    xf = x.to(torch.float32)
    lo = torch.clamp(xf.min(), max=0.0)
    hi = torch.clamp(xf.max(), min=0.0)
    scale = (hi - lo) / 255 if hi > lo else torch.ones((), dtype=torch.float32)
    zero_point = torch.clamp(-torch.floor(lo / scale + 0.5), 0, 255)
    codes = torch.clamp(torch.floor(xf / scale + 0.5) + zero_point, 0, 255)
    dequantized = ((codes - zero_point) * scale).to(x.dtype)
    return codes.to(torch.uint8), scale, zero_point.to(torch.int32), dequantized
