import torch


def zero_point_quantize(x: torch.Tensor):
    xf = x.to(torch.float32)
    # The range always contains 0, so that 0.0 (padding, ReLU outputs) is a code exactly.
    lo = torch.clamp(xf.min(), max=0.0)
    hi = torch.clamp(xf.max(), min=0.0)
    if hi == lo:  # all zeros: no range to spread; the convention is scale 1, zero point 0
        scale = torch.ones((), dtype=torch.float32)
    else:
        scale = (hi - lo) / 255
    zero_point = torch.clamp(-torch.round(lo / scale), 0, 255)
    codes = torch.clamp(torch.round(xf / scale) + zero_point, 0, 255)
    dequantized = ((codes - zero_point) * scale).to(x.dtype)
    return codes.to(torch.uint8), scale, zero_point.to(torch.int32), dequantized
