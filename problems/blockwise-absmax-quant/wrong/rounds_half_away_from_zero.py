# expect: wrong_answer
# why: rounds with sign(v) * floor(|v| + 0.5), half away from zero as in C's round(); the block of
#      exact ties (2.5, 3.5, ...) must round half to even like torch.round
import torch

BLOCK = 256


def blockwise_absmax_quant(x):
    n = x.numel()
    blocks = -(-n // BLOCK)
    xb = torch.zeros(blocks * BLOCK, device=x.device)
    xb[:n] = x
    xb = xb.view(blocks, BLOCK)
    absmax = xb.abs().amax(dim=1)
    step = torch.where(absmax > 0, absmax * (1.0 / 127.0), 1.0)
    scaled = xb / step[:, None]
    codes = scaled.sign() * (scaled.abs() + 0.5).floor()
    return codes.to(torch.int8).view(-1)[:n], absmax, (codes * step[:, None]).view(-1)[:n]
