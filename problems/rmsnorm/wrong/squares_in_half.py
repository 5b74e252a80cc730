# expect: wrong_answer
# why: computes mean(x ** 2) in x's own dtype and upcasts only the result; in float16 a value
#      of 256 or more squares past 65504 to inf, rstd becomes 0 and the whole row comes out 0
import torch


def rmsnorm(x, weight, eps=1e-6):
    mean_square = x.pow(2).mean(dim=-1, keepdim=True).to(torch.float32)
    rstd = torch.rsqrt(mean_square + eps)
    y = weight * (x.to(torch.float32) * rstd).to(x.dtype)
    return y, rstd.squeeze(-1)
