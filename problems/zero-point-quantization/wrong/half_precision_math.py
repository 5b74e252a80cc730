# expect: wrong_answer
# why: computes the scale and x / scale in x's own dtype; for float16/bfloat16 input the scale
#      is rounded to 11 (or 8) significant bits and many codes land one step off
import torch


def zero_point_quantize(x):
    lo = torch.clamp(x.min(), max=0.0)
    hi = torch.clamp(x.max(), min=0.0)
    scale = (hi - lo) / 255 if hi > lo else torch.ones((), dtype=x.dtype)
    zero_point = torch.clamp(-torch.round(lo / scale), 0, 255)
    codes = torch.clamp(torch.round(x / scale) + zero_point, 0, 255)
    dequantized = (codes - zero_point) * scale
    return codes.to(torch.uint8), scale.to(torch.float32), zero_point.to(torch.int32), dequantized
