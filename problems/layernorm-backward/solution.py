import torch


def layernorm_backward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                       grad_out: torch.Tensor, eps: float = 1e-5):
    # The derivation (EDITORIAL.md), in float64: no autograd, as the kata requires.
    d = x.shape[-1]
    xs = x.reshape(-1, d).to(torch.float64)
    g_out = grad_out.reshape(-1, d).to(torch.float64)
    w = weight.to(torch.float64)
    mu = xs.mean(dim=1, keepdim=True)
    var = ((xs - mu) ** 2).mean(dim=1, keepdim=True)  # two passes: no cancellation at large offsets
    rstd = (var + eps).rsqrt()
    x_hat = (xs - mu) * rstd
    g = g_out * w  # the gradient with respect to x_hat
    grad_x = rstd * (g - g.mean(dim=1, keepdim=True) - x_hat * (g * x_hat).mean(dim=1, keepdim=True))
    grad_weight = (g_out * x_hat).sum(dim=0)
    grad_bias = g_out.sum(dim=0)
    return grad_x.reshape(x.shape).to(x.dtype), grad_weight.to(weight.dtype), grad_bias.to(bias.dtype)
