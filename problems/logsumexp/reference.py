import torch


def logsumexp(x: torch.Tensor, dim: int, keepdim: bool = False) -> torch.Tensor:
    xd = x.to(torch.float64)
    if xd.shape[dim] == 0:
        # An empty sum is 0, and log 0 = -inf.
        out = torch.full_like(xd.sum(dim=dim, keepdim=True), float("-inf"))
    else:
        m = xd.amax(dim=dim, keepdim=True)
        # Shift by the max, except where the max is infinite: an all -inf slice (sum 0 -> -inf)
        # or a +inf entry (sum inf -> inf) would otherwise compute inf - inf = NaN.
        shift = torch.where(torch.isinf(m), 0.0, m)
        out = torch.log(torch.exp(xd - shift).sum(dim=dim, keepdim=True)) + shift
    if not keepdim:
        out = out.squeeze(dim)
    return out.to(x.dtype)
