# expect: wrong_answer
# why: drops the reduced dimension with .squeeze() instead of .squeeze(dim), which also removes
#      every other dimension of size 1: [1, 1, 1] reduced over dim 0 should be [1, 1], not []
import torch


def logsumexp(x, dim, keepdim=False):
    xf = x.to(torch.float32)
    if xf.shape[dim] == 0:
        return torch.full_like(xf.sum(dim=dim, keepdim=keepdim), float("-inf")).to(x.dtype)
    m = xf.amax(dim=dim, keepdim=True)
    shift = torch.where(torch.isinf(m), 0.0, m)
    out = torch.log(torch.exp(xf - shift).sum(dim=dim, keepdim=True)) + shift
    return (out if keepdim else out.squeeze()).to(x.dtype)
