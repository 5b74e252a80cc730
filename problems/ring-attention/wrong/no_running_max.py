# expect: wrong_answer
# why: merges by sums of exp(score) without shifting by a maximum: right for small scores, but
#      scores near 1000 overflow exp to inf, and inf / inf is NaN
import torch


def ring_attention_step(q, k, v, out, lse, world_size, step, causal=False, softmax_scale=None):
    scale = q.shape[2] ** -0.5 if softmax_scale is None else softmax_scale
    positions = torch.arange(q.shape[1]).tensor_split(world_size)
    out, lse = out.clone(), lse.clone()
    for r, own in enumerate(positions):
        held = positions[(r - step) % world_size]  # sent on by r - 1 in each earlier step
        s = q[:, own] @ k[:, held].transpose(1, 2) * scale
        if causal:
            s = s.masked_fill(held[None, :] > own[:, None], float("-inf"))
        total = torch.exp(lse[:, own]) + torch.exp(s).sum(dim=-1)
        merged = out[:, own] * torch.exp(lse[:, own])[..., None] + torch.exp(s) @ v[:, held]
        out[:, own] = torch.where(total[..., None] > 0, merged / total[..., None], 0.0)
        lse[:, own] = torch.log(total)
    return out, lse
