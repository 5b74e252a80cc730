import torch


def layernorm_backward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                       grad_out: torch.Tensor, eps: float = 1e-5):
    """Gradients of y = LayerNorm(x) * weight + bias over the last dim, by hand (no autograd).

    Forward, per row of d values: mean mu, biased variance var = mean((x - mu) ** 2),
    rstd = 1 / sqrt(var + eps), x_hat = (x - mu) * rstd, y = x_hat * weight + bias.

    x, grad_out: [..., d]; weight, bias: [d]; all the same float dtype.
    Returns (grad_x, grad_weight, grad_bias) with the shapes and dtypes of x, weight, bias:
    grad_weight and grad_bias sum over every leading dimension. No input may be modified.
    """
    raise NotImplementedError
