# expect: forbidden
# why: the autograd module reached as an attribute, under another name (no import for the static check to see):
#      torch.autograd.functional.vjp is wired where it is defined, so the alias trips too
import torch

ag = torch.autograd


def layernorm_backward(x, weight, bias, grad_out, eps=1e-5):
    def forward(xs, ws, bs):
        return torch.nn.functional.layer_norm(xs, (x.shape[-1],), ws, bs, eps)

    _, grads = ag.functional.vjp(forward, (x, weight, bias), grad_out)
    return grads
