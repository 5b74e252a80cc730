# expect: wrong_answer
# why: normalises but never multiplies by the learned weight
import torch


def rmsnorm(x, weight, eps=1e-6):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)).to(x.dtype)
