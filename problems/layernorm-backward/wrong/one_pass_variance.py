# expect: wrong_answer
# why: computes the variance in one pass as mean(x ** 2) - mean(x) ** 2; algebraically equal,
#      but for rows around 1000 with unit spread both terms are ~1e6 and float32 keeps only ~0.06
#      of their difference: the variance (and every gradient) is off by percents
import torch


def layernorm_backward(x, weight, bias, grad_out, eps=1e-5):
    d = x.shape[-1]
    mu = x.mean(-1, keepdim=True)
    var = (x * x).mean(-1, keepdim=True) - mu * mu
    rstd = torch.rsqrt(var.clamp(min=0) + eps)
    x_hat = (x - mu) * rstd
    g = grad_out * weight
    grad_x = rstd * (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True))
    return grad_x, (grad_out * x_hat).reshape(-1, d).sum(0), grad_out.reshape(-1, d).sum(0)
