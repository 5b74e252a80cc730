# expect: wrong_answer
# why: turns the ring the other way: each rank receives from rank r + 1, so in step t it holds the
#      chunk of rank r + t, while the statement's ring sends to r + 1 (rank r holds rank r - t's chunk)
import torch


def ring_attention_step(q, k, v, out, lse, world_size, step, causal=False, softmax_scale=None):
    scale = q.shape[2] ** -0.5 if softmax_scale is None else softmax_scale
    positions = torch.arange(q.shape[1]).tensor_split(world_size)
    out, lse = out.clone(), lse.clone()
    for r, own in enumerate(positions):
        held = positions[(r + step) % world_size]
        s = q[:, own] @ k[:, held].transpose(1, 2) * scale
        if causal:
            s = s.masked_fill(held[None, :] > own[:, None], float("-inf"))
        block_lse = torch.logsumexp(s, dim=-1)
        safe = torch.where(torch.isfinite(block_lse), block_lse, 0.0)
        block_out = torch.exp(s - safe[..., None]) @ v[:, held]
        new = torch.logaddexp(lse[:, own], block_lse)
        seen = torch.isfinite(new)
        new_safe = torch.where(seen, new, 0.0)
        merged = out[:, own] * torch.exp(lse[:, own] - new_safe)[..., None] + block_out * torch.exp(block_lse - new_safe)[..., None]
        out[:, own] = torch.where(seen[..., None], merged, 0.0)
        lse[:, own] = new
    return out, lse
