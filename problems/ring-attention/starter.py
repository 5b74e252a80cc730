import torch


def ring_attention_step(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, out: torch.Tensor, lse: torch.Tensor,
                        world_size: int, step: int, causal: bool = False, softmax_scale: float | None = None):
    """One step of ring attention, on every rank of the ring.

    q, k, v: [H, S, D]; rank r owns the r-th chunk of the sequence (torch.tensor_split along S). In step t
    rank r holds the KV chunk of rank (r - t) mod P (P = world_size): each step every rank sends what it
    holds to rank r + 1. out [H, S, D] and lse [H, S]: each query's state entering the step, its output
    normalized over the keys its rank received in the earlier steps and the natural log-sum-exp of those
    scores (0 and -inf before any). Those keys have moved on: build on the state, not on k and v.
    Scores are q . k * softmax_scale (1 / sqrt(D) when None); with causal=True a query at global position i
    sees the keys at positions j <= i.

    Returns (out, lse): every query's state after merging the chunk its rank holds in this step.
    """
    raise NotImplementedError
