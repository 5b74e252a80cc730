# expect: memory_limit_exceeded
# why: skips the ranks: one process forms the whole S x S scores, masks each query's row to the chunk its
#      rank holds in this step, and merges that with the state in one log-sum-exp. Every output is right on
#      the small cases, but no rank ever holds S x S scores: the largest case's cannot fit the limit
import torch


def ring_attention_step(q, k, v, out, lse, world_size, step, causal=False, softmax_scale=None):
    seq = q.shape[1]
    scale = q.shape[2] ** -0.5 if softmax_scale is None else softmax_scale
    position = torch.arange(seq)
    owner = torch.zeros(seq, dtype=torch.long)
    for rank, chunk in enumerate(position.tensor_split(world_size)):
        owner[chunk] = rank
    hidden = owner[None, :] != (owner[:, None] - step) % world_size
    if causal:
        hidden |= position[None, :] > position[:, None]
    scores = torch.cat([lse[..., None], (q @ k.transpose(1, 2) * scale).masked_fill(hidden, float("-inf"))], dim=2)
    weights = torch.nan_to_num(torch.softmax(scores, dim=2))
    return weights[..., :1] * out + weights[..., 1:] @ v, torch.logsumexp(scores, dim=2)
