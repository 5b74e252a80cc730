# expect: wrong_answer
# why: turns c / absmax2 * 127 into int8 with a cast, which truncates toward zero; the codes must be
#      rounded to the nearest (half to even), or every absmax is biased toward the mean
import torch

# The NF4 data type (Dettmers et al. 2023, QLoRA; the table bitsandbytes ships): code i stands for NF4[i].
NF4 = torch.tensor([-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
                    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
                    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
                    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0])


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
    absmax_codes = (torch.nan_to_num(centered / absmax2[block2]) * 127).to(torch.int8).float()
    restored = absmax_codes / 127 * absmax2[block2] + offset  # what a loader rebuilds from what is stored
    dequantized = NF4[codes] * restored[block]
    bits = 4 * n + 8 * blocks + 32 * len(absmax2) + 32  # codes, absmax codes, absmax2, the offset
    return packed, absmax_codes.to(torch.int8), absmax2, offset, dequantized, bits / n
