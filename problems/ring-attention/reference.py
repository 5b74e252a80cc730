import torch


def ring_attention(q, k, v, world_size, causal=False, softmax_scale=None):
    # The truth, one rank's queries at a time against every key they may see (rows no rank could hold, the
    # grader may): the output as a plain softmax over each query's visible keys, and after ring step t the
    # log-sum-exp over the chunks its rank has received by then, its own chunk r, then r - 1, ..., r - t
    # (mod P): the running log-sum-exp of the per-chunk ones, taken in that order (a chunk of keys it cannot
    # see, or an empty one, adds -inf).
    heads, seq, dim = q.shape
    scale = dim ** -0.5 if softmax_scale is None else softmax_scale
    chunks = torch.arange(seq).tensor_split(world_size)
    out = torch.empty_like(q)
    steps = torch.empty(world_size, heads, seq, dtype=q.dtype)
    for rank, rows in enumerate(chunks):
        seen = int(rows[-1]) + 1 if causal and len(rows) else seq  # causal: no key after the chunk's last query
        scores = q[:, rows] @ k[:, :seen].transpose(1, 2) * scale
        if causal:
            scores = scores.masked_fill(torch.arange(seen)[None, :] > rows[:, None], float("-inf"))
        out[:, rows] = torch.softmax(scores, dim=-1) @ v[:, :seen]
        per_chunk = torch.stack([torch.logsumexp(scores[..., keys[keys < seen]], dim=-1)
                                 for keys in (chunks[(rank - t) % world_size] for t in range(world_size))])
        steps[:, :, rows] = torch.logcumsumexp(per_chunk, dim=0)
    return out, steps[-1].clone(), steps
