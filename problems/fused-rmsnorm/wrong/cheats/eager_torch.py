# expect: forbidden
# why: eager torch, the reference's own code (this used to be accepted): right on every case, but no Triton
#      kernel is launched, and a kernel is what this kata grades
import torch


def rmsnorm(x, weight, eps=1e-6):
    """y = x / sqrt(mean(x ** 2) + eps) * weight per row, computed in fp32, returned in x's dtype."""
    xf = x.float()
    inv_rms = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (xf * inv_rms * weight.float()).to(x.dtype)
