# expect: forbidden
# why: torch's fused attention through an aliased module, which the static check cannot see (this used to be
#      accepted); the tripwire is on the function itself
import math

import torch
import torch.nn.functional as nnf


def flash_attention_forward(q, k, v, causal, block_q, block_k):
    out = nnf.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    S, D = q.shape[-2], q.shape[-1]
    s = (q.float() @ k.float().transpose(-2, -1)) / math.sqrt(D)
    if causal:
        s = s.masked_fill(torch.ones(S, S, dtype=torch.bool).triu(1), float("-inf"))
    m = s.amax(-1, keepdim=True)
    return out.to(q.dtype), (m + torch.log(torch.exp(s - m).sum(-1, keepdim=True))).squeeze(-1)
