# expect: wrong_answer
# why: subtracts the row mean and divides by the standard deviation, i.e. LayerNorm without a
#      bias; RMSNorm does not center: it divides x itself by its root mean square
import torch


def rmsnorm(x, weight, eps=1e-6):
    xf = x.to(torch.float32)
    centered = xf - xf.mean(dim=-1, keepdim=True)
    rstd = torch.rsqrt(centered.pow(2).mean(dim=-1, keepdim=True) + eps)
    y = weight * (centered * rstd).to(x.dtype)
    return y, rstd.squeeze(-1)
