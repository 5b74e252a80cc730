# expect: memory_limit_exceeded
# why: skips the ring: one process forms the whole S x S scores, and fakes each ring step's state by
#      masking out the keys of the chunks a query's rank has not yet received. Every output is right on
#      the small cases, but no rank ever holds S x S scores: the largest case's cannot fit the limit
import torch


def ring_attention(q, k, v, world_size, causal=False, softmax_scale=None):
    seq = q.shape[1]
    scale = q.shape[2] ** -0.5 if softmax_scale is None else softmax_scale
    scores = q @ k.transpose(1, 2) * scale
    position = torch.arange(seq)
    if causal:
        scores = scores.masked_fill(position[None, :] > position[:, None], float("-inf"))
    owner = torch.zeros(seq, dtype=torch.long)
    for rank, chunk in enumerate(position.tensor_split(world_size)):
        owner[chunk] = rank
    behind = (owner[:, None] - owner[None, :]) % world_size
    steps = torch.stack([torch.logsumexp(scores.masked_fill(behind > t, float("-inf")), dim=-1)
                         for t in range(world_size)])
    lse = steps[-1]
    return torch.exp(scores - lse[..., None]) @ v, lse, steps
