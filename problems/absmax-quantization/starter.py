import torch


def absmax_quantize(x: torch.Tensor, bits: int):
    """Symmetric absmax quantization of x to signed `bits`-bit integers.

    qmax = 2 ** (bits - 1) - 1
    scale = max(|x|) / qmax            (1.0 when x is all zeros)
    ints = clamp(round(x / scale), -qmax, qmax)   round half to even, like torch.round
    dequantized = ints * scale
    mse = mean((x - dequantized) ** 2)

    Returns the tuple (scale, ints, dequantized, mse):
      scale: 0-d tensor, x's dtype
      ints: int32 tensor, x's shape
      dequantized: tensor of x's shape and dtype
      mse: 0-d tensor, x's dtype
    x must not be modified.
    """
    raise NotImplementedError
