import math

import torch


def flash_attention_forward(q, k, v, causal, block_q, block_k):
    # The truth is plain attention in fp32; the result does not depend on the tile sizes.
    d = q.shape[-1]
    scores = (q.float() @ k.float().transpose(-2, -1)) / math.sqrt(d)
    if causal:
        s = q.shape[-2]
        future = torch.ones(s, s, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    p = torch.exp(scores - lse[..., None])
    out = p @ v.float()
    return out.to(q.dtype), lse
