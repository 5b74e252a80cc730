# expect: wrong_answer
# why: computes log(sum(exp(x))) directly; exp(1000) overflows to inf and exp(-1000) underflows
#      to 0, so large logits give inf and very negative ones give -inf
import torch


def logsumexp(x, dim, keepdim=False):
    return torch.log(torch.exp(x.to(torch.float32)).sum(dim=dim, keepdim=keepdim)).to(x.dtype)
