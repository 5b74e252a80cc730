import torch


def nf4_double_quant(w: torch.Tensor, blocksize: int = 64, blocksize2: int = 256):
    """NF4 quantization of a flattened weight in blocks of `blocksize`, with the blocks' absmaxes
    quantized again (double quantization) to int8 in blocks of `blocksize2` after subtracting their mean.

    w: [n] float32, n even. Return (packed [n / 2] uint8, absmax_codes [blocks] int8,
    absmax2 [ceil(blocks / blocksize2)] float32, offset 0-dim float32, dequantized [n] float32,
    bits_per_param float).
    """
    raise NotImplementedError
