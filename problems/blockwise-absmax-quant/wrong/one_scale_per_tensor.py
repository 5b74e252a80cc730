# expect: wrong_answer
# why: one absmax for the whole tensor instead of one per block of 256, so the outlier (1000.0)
#      flattens every other block to a handful of codes
import torch

BLOCK = 256


def blockwise_absmax_quant(x):
    n = x.numel()
    absmax = x.abs().max()
    step = absmax * (1.0 / 127.0) if absmax > 0 else torch.ones(())
    codes = torch.round(x / step)
    blocks = -(-n // BLOCK)
    return codes.to(torch.int8), absmax.expand(blocks).clone(), codes * step
