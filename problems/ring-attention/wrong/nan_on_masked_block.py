# expect: wrong_answer
# why: normalizes the block on its own (its softmax and its log-sum-exp) and merges by log-sum-exps,
#      which is right, but under the causal mask a later rank's chunk is fully masked: the block's softmax
#      is 0 / 0 = NaN, and NaN * exp(-inf) is still NaN in the merged output
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
        block_lse = torch.logsumexp(s, dim=-1)
        block_out = torch.softmax(s, dim=-1) @ v[:, held]
        new = torch.logaddexp(lse[:, own], block_lse)
        seen = torch.isfinite(new)
        new_safe = torch.where(seen, new, 0.0)
        merged = out[:, own] * torch.exp(lse[:, own] - new_safe)[..., None] + block_out * torch.exp(block_lse - new_safe)[..., None]
        out[:, own] = torch.where(seen[..., None], merged, 0.0)
        lse[:, own] = new
    return out, lse
