import torch


def ring_attention_step(q, k, v, out, lse, world_size, step, causal=False, softmax_scale=None):
    # A query's state is worth exactly one key: its score lse and its value out. So the step is plain
    # attention over that key and the keys of the chunk the rank holds in this step, rank (r - step) mod P's.
    scale = q.shape[2] ** -0.5 if softmax_scale is None else softmax_scale
    positions = torch.arange(q.shape[1]).tensor_split(world_size)
    new_out, new_lse = torch.empty_like(out), torch.empty_like(lse)
    for rank, own in enumerate(positions):
        held = positions[(rank - step) % world_size]
        scores = q[:, own] @ k[:, held].transpose(1, 2) * scale
        if causal:
            scores = scores.masked_fill(held[None, :] > own[:, None], float("-inf"))
        scores = torch.cat([lse[:, own, None], scores], dim=2)
        # Never all -inf: in step 0 a rank holds its own chunk, whose diagonal a query sees, and after it the
        # state is finite.
        weights = torch.softmax(scores, dim=2)
        new_out[:, own] = weights[..., :1] * out[:, own] + weights[..., 1:] @ v[:, held]
        new_lse[:, own] = torch.logsumexp(scores, dim=2)
    return new_out, new_lse
