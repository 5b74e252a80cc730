# expect: wrong_answer
# why: shifts by the max and remembers the fully masked row (max -inf -> shift 0), but not a
#      +inf entry: x - max is inf - inf = NaN there, and the result is NaN instead of +inf
import torch


def logsumexp(x, dim, keepdim=False):
    xf = x.to(torch.float32)
    if xf.shape[dim] == 0:
        return torch.full_like(xf.sum(dim=dim, keepdim=keepdim), float("-inf")).to(x.dtype)
    m = xf.amax(dim=dim, keepdim=True)
    shift = torch.where(m == float("-inf"), 0.0, m)
    out = torch.log(torch.exp(xf - shift).sum(dim=dim, keepdim=True)) + shift
    return (out if keepdim else out.squeeze(dim)).to(x.dtype)
