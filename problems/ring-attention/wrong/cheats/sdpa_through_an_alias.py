# expect: forbidden
# why: computes each block's output with PyTorch's fused attention through an alias that the static check
#      of forbidden calls cannot see; the tripwire on the function itself refuses it at run time. (Fused
#      attention returns no log-sum-exp, so this computes the block's separately for the merge.)
import torch
from torch.nn.functional import scaled_dot_product_attention as attend


def ring_attention_step(q, k, v, out, lse, world_size, step, causal=False, softmax_scale=None):
    scale = q.shape[2] ** -0.5 if softmax_scale is None else softmax_scale
    positions = torch.arange(q.shape[1]).tensor_split(world_size)
    out, lse = out.clone(), lse.clone()
    for r, own in enumerate(positions):
        held = positions[(r - step) % world_size]
        visible = held[None, :] <= own[:, None] if causal else torch.ones(len(own), len(held), dtype=torch.bool)
        block_out = torch.nan_to_num(attend(q[:, own], k[:, held], v[:, held], attn_mask=visible, scale=scale))
        s = (q[:, own] @ k[:, held].transpose(1, 2) * scale).masked_fill(~visible, float("-inf"))
        new = torch.logaddexp(lse[:, own], torch.logsumexp(s, dim=-1))
        weight = torch.nan_to_num(torch.exp(lse[:, own] - new))[..., None]
        out[:, own] = out[:, own] * weight + block_out * (1 - weight)
        lse[:, own] = new
    return out, lse
