# expect: wrong_answer
# why: treats the mean and the variance as constants: grad_x = grad_out * weight * rstd. But
#      every x in a row moves mu and var, which feeds back into every output of the row; the
#      two mean terms of the true gradient are missing
import torch


def layernorm_backward(x, weight, bias, grad_out, eps=1e-5):
    d = x.shape[-1]
    mu = x.mean(-1, keepdim=True)
    rstd = torch.rsqrt(((x - mu) ** 2).mean(-1, keepdim=True) + eps)
    x_hat = (x - mu) * rstd
    grad_x = grad_out * weight * rstd
    return grad_x, (grad_out * x_hat).reshape(-1, d).sum(0), grad_out.reshape(-1, d).sum(0)
