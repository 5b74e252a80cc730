# expect: memory_limit_exceeded
# why: plain attention one head at a time, every step in place: a head's S x S scores alone (4 MiB in float32 at
#      the largest case) are all the memory the limit allows, so the tiles are the only way through
import math

import torch


def flash_attention_forward(q, k, v, causal, block_q, block_k):
    B, H, S, D = q.shape
    out = torch.empty(B, H, S, D, dtype=torch.float32)
    lse = torch.empty(B, H, S, dtype=torch.float32)
    for b in range(B):
        for h in range(H):
            s = q[b, h].float() @ k[b, h].float().t()
            s.mul_(1.0 / math.sqrt(D))
            if causal:
                s.masked_fill_(torch.ones(S, S, dtype=torch.bool).triu_(1), float("-inf"))
            m = s.amax(-1, keepdim=True)
            s.sub_(m).exp_()
            l = s.sum(-1, keepdim=True)
            out[b, h] = (s @ v[b, h].float()) / l
            lse[b, h] = (m + torch.log(l)).squeeze(-1)
    return out.to(q.dtype), lse
