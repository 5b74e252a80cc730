# expect: forbidden
# why: calls PyTorch's fused attention through an alias that the static check of forbidden calls
#      cannot see; the tripwire on the function itself refuses it at run time. (Without it, the
#      per-step state would give it away: it returns no log-sum-exp, so this computes the final one
#      separately and reports it for every ring step.)
import torch
from torch.nn.functional import scaled_dot_product_attention as attend


def ring_attention(q, k, v, world_size, causal=False, softmax_scale=None):
    scale = q.shape[2] ** -0.5 if softmax_scale is None else softmax_scale
    out = attend(q, k, v, is_causal=causal, scale=scale)
    scores = q @ k.transpose(1, 2) * scale
    if causal:
        seq = q.shape[1]
        scores = scores.masked_fill(torch.ones(seq, seq, dtype=torch.bool).triu(1), float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    return out, lse, torch.stack([lse] * world_size)
