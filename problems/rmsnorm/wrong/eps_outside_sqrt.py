# expect: wrong_answer
# why: divides by sqrt(mean(x ** 2)) + eps instead of sqrt(mean(x ** 2) + eps); the same for
#      ordinary rows, but where mean(x ** 2) is near or below eps (zero rows, rows of ~1e-4) the
#      scale is up to 1000x larger
import torch


def rmsnorm(x, weight, eps=1e-6):
    xf = x.to(torch.float32)
    rstd = 1.0 / (xf.pow(2).mean(dim=-1, keepdim=True).sqrt() + eps)
    y = weight * (xf * rstd).to(x.dtype)
    return y, rstd.squeeze(-1)
