import torch


def layernorm_backward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                       grad_out: torch.Tensor, eps: float = 1e-5):
    # The truth is autograd through torch's own layer_norm, in float64. (Solutions may not use
    # autograd; this reference is trusted code.)
    d = x.shape[-1]
    with torch.enable_grad():
        xd = x.detach().to(torch.float64).requires_grad_()
        wd = weight.detach().to(torch.float64).requires_grad_()
        bd = bias.detach().to(torch.float64).requires_grad_()
        y = torch.nn.functional.layer_norm(xd, (d,), wd, bd, eps)
        y.backward(grad_out.to(torch.float64))
    grad_w = wd.grad if wd.grad is not None else torch.zeros_like(wd)
    grad_b = bd.grad if bd.grad is not None else torch.zeros_like(bd)
    return xd.grad.to(x.dtype), grad_w.to(weight.dtype), grad_b.to(bias.dtype)
