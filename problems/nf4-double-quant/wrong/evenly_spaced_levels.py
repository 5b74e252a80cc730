# expect: wrong_answer
# why: uses 16 evenly spaced levels from -1 to 1 (plain int4 absmax): normal weights crowd near 0,
#      where NF4 puts its levels, and the even grid has no level at exactly 0
import torch

NF4 = torch.linspace(-1.0, 1.0, 16)


def nf4_double_quant(w, blocksize=64, blocksize2=256):
    n = w.numel()
    blocks = -(-n // blocksize)  # the last block may be shorter
    block = torch.arange(n) // blocksize
    absmax = torch.zeros(blocks).scatter_reduce(0, block, w.abs(), "amax")
    # Each value to the nearest NF4 level of value / absmax (an all-zero block: 0 / 0 -> 0, code 7).
    codes = (torch.nan_to_num(w / absmax[block])[:, None] - NF4[None, :]).abs().argmin(dim=1)
    packed = (codes[0::2] << 4 | codes[1::2]).to(torch.uint8)  # element 2i in the high nibble
    # Double quantization: the absmaxes, less their mean, to int8 in blocks of blocksize2.
    offset = absmax.mean()
    centered = absmax - offset
    block2 = torch.arange(blocks) // blocksize2
    absmax2 = torch.zeros(-(-blocks // blocksize2)).scatter_reduce(0, block2, centered.abs(), "amax")
    absmax_codes = torch.round(torch.nan_to_num(centered / absmax2[block2]) * 127)
    restored = absmax_codes / 127 * absmax2[block2] + offset  # what a loader rebuilds from what is stored
    dequantized = NF4[codes] * restored[block]
    bits = 4 * n + 8 * blocks + 32 * len(absmax2) + 32  # codes, absmax codes, absmax2, the offset
    return packed, absmax_codes.to(torch.int8), absmax2, offset, dequantized, bits / n
