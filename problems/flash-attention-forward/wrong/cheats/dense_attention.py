# expect: memory_limit_exceeded
# why: plain attention, written out by hand with no forbidden name (this used to be accepted): right on every
#      small case, but it forms the S x S scores, which the largest case's memory limit cannot hold
import math

import torch


def flash_attention_forward(q, k, v, causal, block_q, block_k):
    S, D = q.shape[-2], q.shape[-1]
    s = (q.float() @ k.float().transpose(-2, -1)) / math.sqrt(D)
    if causal:
        s = s.masked_fill(torch.ones(S, S, dtype=torch.bool).triu(1), float("-inf"))
    m = s.amax(-1, keepdim=True)
    p = torch.exp(s - m)
    l = p.sum(-1, keepdim=True)
    return ((p @ v.float()) / l).to(q.dtype), (m + torch.log(l)).squeeze(-1)
