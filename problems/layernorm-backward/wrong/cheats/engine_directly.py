# expect: forbidden
# why: past every public name (and without an import the static check would see), straight into the function
#      they all call; the autograd engine itself refuses to run a backward pass here ([grading] autograd = false)
import torch


def layernorm_backward(x, weight, bias, grad_out, eps=1e-5):
    xs, ws, bs = (t.detach().clone().requires_grad_() for t in (x, weight, bias))
    with torch.enable_grad():
        y = torch.nn.functional.layer_norm(xs, (x.shape[-1],), ws, bs, eps)
        run_backward = getattr(torch.autograd.graph, "_engine_run_backward")
        return run_backward((y,), (grad_out,), False, False, (xs, ws, bs), True, False)
