# expect: wrong_answer
# why: reduces grad_weight and grad_bias with .sum(0), which is right for [tokens, d] but for a
#      [batch, seq, d] input leaves a [seq, d] tensor: the weight is shared by every token, so
#      its gradient sums over all leading dimensions
import torch


def layernorm_backward(x, weight, bias, grad_out, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    rstd = torch.rsqrt(((x - mu) ** 2).mean(-1, keepdim=True) + eps)
    x_hat = (x - mu) * rstd
    g = grad_out * weight
    grad_x = rstd * (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True))
    return grad_x, (grad_out * x_hat).sum(0), grad_out.sum(0)
