# expect: wrong_answer
# why: quantises only the full blocks (n // 256 of them) and leaves the last, partial block as
#      zeros, with no absmax for it
import torch

BLOCK = 256


def blockwise_absmax_quant(x):
    n = x.numel()
    full = n // BLOCK
    xb = x[: full * BLOCK].view(full, BLOCK)
    absmax = xb.abs().amax(dim=1)
    step = torch.where(absmax > 0, absmax * (1.0 / 127.0), 1.0)
    codes = torch.zeros(n, dtype=torch.int8, device=x.device)
    dequantized = torch.zeros(n, device=x.device)
    quantised = torch.round(xb / step[:, None])
    codes[: full * BLOCK] = quantised.to(torch.int8).view(-1)
    dequantized[: full * BLOCK] = (quantised * step[:, None]).view(-1)
    return codes, torch.cat([absmax, torch.zeros(-(-n // BLOCK) - full, device=x.device)]), dequantized
