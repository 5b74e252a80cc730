import torch


def ring_attention(q, k, v, world_size, causal=False, softmax_scale=None):
    # P ranks simulated in lockstep: rank r keeps its own queries, its running (out, lse), and the one
    # KV chunk it holds in step t, chunk (r - t) mod P, then passes it on to rank r + 1.
    P = world_size
    scale = q.shape[2] ** -0.5 if softmax_scale is None else softmax_scale
    positions = torch.arange(q.shape[1]).tensor_split(P)
    queries = q.tensor_split(P, dim=1)
    held = list(zip(k.tensor_split(P, dim=1), v.tensor_split(P, dim=1), positions, strict=True))
    outs = [torch.zeros_like(chunk) for chunk in queries]
    lses = [torch.full(chunk.shape[:2], float("-inf"), dtype=q.dtype) for chunk in queries]
    lse_steps = torch.empty(P, *q.shape[:2], dtype=q.dtype)
    for t in range(P):
        for r in range(P):
            keys, values, key_positions = held[r]
            scores = queries[r] @ keys.transpose(1, 2) * scale
            if causal:
                hidden = key_positions[None, :] > positions[r][:, None]
                scores = scores.masked_fill(hidden, float("-inf"))
            if scores.shape[-1]:
                block_lse = torch.logsumexp(scores, dim=-1)
                # A query that sees none of this chunk (block_lse = -inf) takes its zero weight from the merge.
                safe = torch.where(torch.isfinite(block_lse), block_lse, 0.0)
                block_out = torch.exp(scores - safe[..., None]) @ values
                new = torch.logaddexp(lses[r], block_lse)
                seen = torch.isfinite(new)
                new_safe = torch.where(seen, new, 0.0)
                outs[r] = torch.where(seen[..., None], outs[r] * torch.exp(lses[r] - new_safe)[..., None]
                                      + block_out * torch.exp(block_lse - new_safe)[..., None], 0.0)
                lses[r] = new
            lse_steps[t][:, positions[r]] = lses[r]
        held = held[-1:] + held[:-1]  # every rank sends to r + 1: rank r now holds what r - 1 held
    return torch.cat(outs, dim=1), lse_steps[-1].clone(), lse_steps
