import torch


def ring_attention(q, k, v, world_size, causal=False, softmax_scale=None):
    # The truth, computed densely (no rank could hold these [S, S] scores): attention over every
    # key, and after each ring step t the log-sum-exp over the keys of the chunks a query's rank has
    # received so far: its own chunk r, then r - 1, ..., r - t (mod P).
    seq = q.shape[1]
    scale = q.shape[2] ** -0.5 if softmax_scale is None else softmax_scale
    scores = q @ k.transpose(1, 2) * scale
    position = torch.arange(seq)
    if causal:
        scores = scores.masked_fill(position[None, :] > position[:, None], float("-inf"))
    owner = torch.zeros(seq, dtype=torch.long)
    for rank, chunk in enumerate(position.tensor_split(world_size)):
        owner[chunk] = rank
    behind = (owner[:, None] - owner[None, :]) % world_size  # how many ring steps a key's chunk needs
    steps = torch.stack([torch.logsumexp(scores.masked_fill(behind > t, float("-inf")), dim=-1)
                         for t in range(world_size)])
    out = torch.softmax(scores, dim=-1) @ v
    return out, steps[-1], steps
