"""A second reference: the model size found by search instead of by the square root. The cost of a
token per parameter is counted on a linear layer's forward and backward matmuls (run on the meta
device: shapes, no compute; 2 FLOPs per multiply-add); bisection then finds the N whose training on
D = r N tokens costs the budget, and both are rounded once."""
import torch


def _matmul(a, b, tally):
    out = a @ b
    tally.append(2 * out.numel() * a.shape[-1])
    return out


def _flops_per_parameter_token():
    tally = []
    x, w = torch.empty(32, 16, device="meta"), torch.empty(16, 8, device="meta")
    grad_y = torch.empty_like(_matmul(x, w, tally))  # forward
    _matmul(grad_y, w.T, tally)  # backward: for the input
    _matmul(x.T, grad_y, tally)  # backward: for the weight
    return sum(tally) // (32 * w.numel())


def chinchilla_optimal(compute_flops, tokens_per_param=20.0):
    per_token = _flops_per_parameter_token()

    def cost(n):
        return per_token * n * (tokens_per_param * n)

    low, high = 0.0, 1.0
    while cost(high) < compute_flops:
        high *= 2
    for _ in range(200):  # far past float precision: the interval stops shrinking
        middle = (low + high) / 2
        if middle in (low, high):
            break
        low, high = (middle, high) if cost(middle) < compute_flops else (low, middle)
    n = high if abs(cost(high) - compute_flops) <= abs(cost(low) - compute_flops) else low
    return (round(n), round(tokens_per_param * n))
