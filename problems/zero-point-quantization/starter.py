import torch


def zero_point_quantize(x: torch.Tensor):
    """Asymmetric (affine) per-tensor uint8 quantization of x.

    Work in float32 whatever x's dtype:
      lo = min(min(x), 0), hi = max(max(x), 0)      the range always contains 0
      scale = (hi - lo) / 255                       1.0 when hi == lo (x all zeros)
      zero_point = clamp(-round(lo / scale), 0, 255)
      codes = clamp(round(x / scale) + zero_point, 0, 255)
      dequantized = (codes - zero_point) * scale, cast to x's dtype
    round is round-half-to-even, like torch.round.

    Returns the tuple (codes, scale, zero_point, dequantized):
      codes: uint8 tensor, x's shape
      scale: 0-d float32 tensor
      zero_point: 0-d int32 tensor
      dequantized: tensor of x's shape and dtype
    x must not be modified.
    """
    raise NotImplementedError
