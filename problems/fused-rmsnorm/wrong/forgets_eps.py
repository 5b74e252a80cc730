# expect: wrong_answer
# why: leaves eps out of the root: the row of zeros becomes 0 / 0 = NaN, and the rows of ~1e-4
#      are blown up to unit scale
import torch


def rmsnorm(x, weight, eps=1e-6):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True)) * weight.float()).to(x.dtype)
