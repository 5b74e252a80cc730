import torch


def ring_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, world_size: int,
                   causal: bool = False, softmax_scale: float | None = None):
    """Attention over a sequence split across `world_size` ranks, computed as a ring.

    q, k, v: [H, S, D]. Rank r holds the r-th chunk of the sequence (torch.tensor_split along S):
    its queries, keys and values. In step t = 0, 1, ..., P - 1 every rank attends its queries to
    the KV chunk it holds, then sends that chunk to rank r + 1 and receives one from rank r - 1:
    in step 0 rank r holds its own chunk, in step t the chunk of rank (r - t) mod P.
    Scores are q . k * softmax_scale (1 / sqrt(D) when None); with causal=True a query at global
    position i sees the keys at positions j <= i.

    Returns (out [H, S, D], lse [H, S], lse_steps [P, H, S]): the attention output, the natural
    log-sum-exp of each query's scores over all the keys it sees, and that log-sum-exp over the
    keys its rank has seen by the end of each step (lse_steps[-1] == lse).
    """
    raise NotImplementedError
