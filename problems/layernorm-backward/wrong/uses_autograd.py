# expect: forbidden
# why: differentiates torch's layer_norm with torch.autograd.grad instead of deriving the
#      gradients; right numbers, but the exercise is the derivation (autograd is refused here)
import torch


def layernorm_backward(x, weight, bias, grad_out, eps=1e-5):
    x = x.detach().requires_grad_()
    weight = weight.detach().requires_grad_()
    bias = bias.detach().requires_grad_()
    with torch.enable_grad():
        y = torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps)
        return torch.autograd.grad(y, (x, weight, bias), grad_out)
