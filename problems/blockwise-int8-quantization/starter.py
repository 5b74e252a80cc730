

def blockwise_int8_quantize(x, block_size):
    """Blockwise absmax int8 quantisation of x and its dequantisation.

    x: float32, float16 or bfloat16, any shape; blocks are consecutive runs of block_size
       elements of x.reshape(-1), the last one shorter when block_size does not divide x.numel()
    For each block (computed in float32):
      scale = max|block| / 127            (0 for an all-zero block)
      codes = clamp(round(block / scale), -127, 127)   round half to even; 0 where scale is 0
      dequantized = codes * scale

    Returns (codes, scales, dequantized):
      codes: int8, x's shape
      scales: float32, [ceil(numel / block_size)]
      dequantized: float32, x's shape
    x must not be modified.
    """
    raise NotImplementedError
