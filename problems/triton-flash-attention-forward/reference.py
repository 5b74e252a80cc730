import math

import torch


def flash_attention(q, k, v, causal):
    # The truth is plain attention in fp32, with the S x S scores the kernel must never form.
    d, s = q.shape[-1], q.shape[-2]
    scores = (q.float() @ k.float().transpose(-2, -1)) / math.sqrt(d)
    if causal:
        future = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    return torch.exp(scores - lse[..., None]) @ v.float(), lse
