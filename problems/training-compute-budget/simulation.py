"""A second reference: the cost of a training token counted on the operations instead of assumed. A
linear layer's forward matmul and the two matmuls of its backward (the gradients for its input and
for its weight) run on the meta device (shapes, no compute), each tallied at 2 FLOPs (a multiply and
an add) per multiply-add; per parameter per token that is the cost of every parameter of a dense
model, and the budget buys compute_flops / (that cost * num_params) tokens."""
import torch

TOKENS, D_IN, D_OUT = 32, 16, 8


def _matmul(a, b, tally):
    out = a @ b
    tally.append(2 * out.numel() * a.shape[-1])
    return out


def _flops_per_parameter_token():
    tally = []
    x = torch.empty(TOKENS, D_IN, device="meta")
    w = torch.empty(D_IN, D_OUT, device="meta")
    y = _matmul(x, w, tally)  # forward
    grad_y = torch.empty_like(y)
    _matmul(grad_y, w.T, tally)  # backward: the gradient for the input
    _matmul(x.T, grad_y, tally)  # backward: the gradient for the weight
    return sum(tally) // (TOKENS * w.numel())


def tokens_for_budget(compute_flops, num_params):
    return compute_flops / (_flops_per_parameter_token() * num_params)
