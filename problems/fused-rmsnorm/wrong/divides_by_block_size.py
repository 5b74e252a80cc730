# expect: wrong_answer
# why: the classic Triton padding bug, written in torch: the sum of squares is divided by the
#      padded power-of-two block size instead of the row length, so rows of 5 or 1000 are scaled wrong
import torch


def rmsnorm(x, weight, eps=1e-6):
    xf = x.float()
    block = 1 << (x.shape[-1] - 1).bit_length()
    inv_rms = torch.rsqrt(xf.pow(2).sum(dim=-1, keepdim=True) / block + eps)
    return (xf * inv_rms * weight.float()).to(x.dtype)
