def layernorm_backward(x, weight, grad_out, mean, rstd):
    # layernorm-backward's gradients (whose reference is autograd through torch's layer_norm), from the
    # forward's saved statistics: x_hat = (x - mean) * rstd, y = x_hat * weight + bias. x_hat is fp32, as
    # the statistics are; everything after it is float64.
    dy = grad_out.double()
    x_hat = (x - mean[:, None]) * rstd[:, None]
    g = dy * weight
    dx = (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True)) * rstd[:, None]
    return dx.to(x.dtype), (dy * x_hat).sum(0).float(), dy.sum(0).float()
