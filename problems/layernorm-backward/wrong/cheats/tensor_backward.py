# expect: forbidden
# why: autograd through the Tensor method: `y.backward(...)` names nothing the static check sees (it used to be
#      accepted); the autograd engine is off in this kata, so the call stops on this line
import torch


def layernorm_backward(x, weight, bias, grad_out, eps=1e-5):
    xs, ws, bs = (t.detach().clone().requires_grad_() for t in (x, weight, bias))
    with torch.enable_grad():
        y = torch.nn.functional.layer_norm(xs, (x.shape[-1],), ws, bs, eps)
        y.backward(grad_out)
    return xs.grad, ws.grad, bs.grad
