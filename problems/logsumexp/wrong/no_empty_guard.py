# expect: runtime_error
# why: takes amax over the reduced dimension without checking its size; max over an empty
#      slice has no value and torch raises, where the sum of no terms is 0 and its log is -inf
import torch


def logsumexp(x, dim, keepdim=False):
    xf = x.to(torch.float32)
    m = xf.amax(dim=dim, keepdim=True)
    shift = torch.where(torch.isinf(m), 0.0, m)
    out = torch.log(torch.exp(xf - shift).sum(dim=dim, keepdim=True)) + shift
    return (out if keepdim else out.squeeze(dim)).to(x.dtype)
