# expect: wrong_answer
# why: takes the range from min(x) and max(x) alone; when every value has the same sign 0.0 is
#      no longer a code (padding and ReLU zeros dequantize to a nonzero value), and the scale and
#      zero point differ from the convention's
import torch


def zero_point_quantize(x):
    xf = x.to(torch.float32)
    lo, hi = xf.min(), xf.max()
    scale = (hi - lo) / 255 if hi > lo else torch.ones((), dtype=torch.float32)
    zero_point = torch.clamp(-torch.round(lo / scale), 0, 255)
    codes = torch.clamp(torch.round(xf / scale) + zero_point, 0, 255)
    dequantized = ((codes - zero_point) * scale).to(x.dtype)
    return codes.to(torch.uint8), scale, zero_point.to(torch.int32), dequantized
