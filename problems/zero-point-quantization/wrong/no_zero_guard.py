# expect: wrong_answer
# why: no special case for an all-zero tensor: hi == lo gives scale 0, and 0 / 0 = NaN turns
#      into garbage codes and zero point
import torch


def zero_point_quantize(x):
    xf = x.to(torch.float32)
    lo = torch.clamp(xf.min(), max=0.0)
    hi = torch.clamp(xf.max(), min=0.0)
    scale = (hi - lo) / 255
    zero_point = torch.clamp(-torch.round(lo / scale), 0, 255)
    codes = torch.clamp(torch.round(xf / scale) + zero_point, 0, 255)
    dequantized = ((codes - zero_point) * scale).to(x.dtype)
    return codes.to(torch.uint8), scale, zero_point.to(torch.int32), dequantized
