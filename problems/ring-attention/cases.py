"""One ring step of every rank: q, k, v as the ranks own them (chunk r is rank r's) and each query's state
entering the step. A state summarizes the chunks its rank received in the earlier steps; here those chunks
are drawn apart (keys and values at the same positions, never passed), so the state is the only thing a
step can build on, as on a real ring, where those chunks have moved on. The two example cases are one
real ring of two ranks, state and all."""
import torch


def _qkv(seed, heads, seq, dim, dtype=torch.float32, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(heads, seq, dim, generator=g, dtype=torch.float64) * scale
    k = torch.randn(heads, seq, dim, generator=g, dtype=torch.float64)
    v = torch.randn(heads, seq, dim, generator=g, dtype=torch.float64)
    return tuple(t.to(dtype) for t in (q, k, v))


def _state(q, k, v, world_size, step, causal, scale):
    """Each query's (out, lse) over the chunks its rank received in steps 0 .. step - 1: its own, then those
    of ranks r - 1, ..., r - step + 1 (mod P). The empty state (0, -inf) at step 0."""
    positions = torch.arange(q.shape[1]).tensor_split(world_size)
    out, lse = torch.zeros_like(q), torch.full(q.shape[:2], float("-inf"), dtype=q.dtype)
    for rank, own in enumerate(positions):
        seen = [positions[(rank - t) % world_size] for t in range(step)]
        if not seen or not len(own):
            continue
        keys = torch.cat(seen)
        scores = (q[:, own].double() @ k[:, keys].double().transpose(1, 2)) * scale
        if causal:
            scores = scores.masked_fill(keys[None, :] > own[:, None], float("-inf"))
        rank_lse = torch.logsumexp(scores, dim=2)
        weights = torch.exp(scores - torch.where(torch.isfinite(rank_lse), rank_lse, 0.0)[..., None])
        out[:, own] = (weights @ v[:, keys].double()).to(q.dtype)
        lse[:, own] = rank_lse.to(q.dtype)
    return out, lse


def _case(seed, heads, seq, dim, world_size, step, causal=False, softmax_scale=None, dtype=torch.float32,
          scale=1.0):
    """-> args and kwargs of one step: fresh q, k, v, and a state over other keys at the same positions."""
    q, k, v = _qkv(seed, heads, seq, dim, dtype, scale)
    _, earlier_k, earlier_v = _qkv(seed + 1000, heads, seq, dim, dtype, scale)
    used = dim ** -0.5 if softmax_scale is None else softmax_scale
    out, lse = _state(q, earlier_k, earlier_v, world_size, step, causal, used)
    args = (q, k, v, out, lse, world_size, step, *((True,) if causal else ()))
    return {"args": args, **({"kwargs": {"softmax_scale": softmax_scale}} if softmax_scale is not None else {})}


def _example(step):
    q = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]])
    k = torch.tensor([[[1.0, 0.0], [0.0, 2.0], [-1.0, 0.0], [1.0, 1.0]]])
    v = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [-1.0, 3.0]]])
    return (q, k, v, *_state(q, k, v, 2, step, False, 2 ** -0.5), 2, step)


def cases():
    return [
        {"name": "example, step 0: 4 tokens over 2 ranks, each on its own chunk from the empty state",
         "args": _example(0)},
        {"name": "example, step 1: each rank holds the other's chunk and merges it into its state",
         "args": _example(1)},
        {"name": "one rank: its own chunk, nothing moves", **_case(1, 2, 7, 4, 1, 0)},
        {"name": "causal, 12 tokens over 3 ranks, step 0: each rank on its diagonal block, from the empty state",
         **_case(9, 2, 12, 4, 3, 0, causal=True)},
        {"name": "causal, 16 tokens over 4 ranks, step 2: ranks 0 and 1 hold later chunks, fully masked",
         **_case(2, 2, 16, 8, 4, 2, causal=True)},
        {"name": "causal, 10 tokens over 4 ranks (chunks 3, 3, 2, 2), step 1, softmax_scale 0.3",
         **_case(3, 3, 10, 4, 4, 1, causal=True, softmax_scale=0.3)},
        {"name": "3 tokens over 5 ranks, step 3: empty chunks held, ranks with no queries", **_case(4, 2, 3, 4, 5, 3)},
        {"name": "causal, 4 heads, 64 tokens over 8 ranks, the last step (7)", **_case(5, 4, 64, 16, 8, 7, causal=True)},
        {"name": "scores near 1000, in the state and in the chunk: merged without overflow",
         **_case(6, 2, 24, 8, 3, 1, scale=300.0)},
        {"name": "float64, causal, 50 tokens over 6 ranks, step 4, softmax_scale 0.05",
         **_case(7, 2, 50, 8, 6, 4, causal=True, softmax_scale=0.05, dtype=torch.float64)},
        # Last, so that a method's other mistakes show first: the S x S scores of this case (2 heads x 2048^2
        # x 4 bytes = 32 MiB) do not fit the worker's 24 MiB, while a rank's step (its 256 queries against the
        # 256 keys it holds) takes 512 KiB.
        {"name": "causal, 2 heads, 2048 tokens over 8 ranks, step 5: the S x S scores (32 MiB) exceed the 24 MiB "
                 "limit", **_case(8, 2, 2048, 16, 8, 5, causal=True)},
    ]


def fresh(seed):
    """One step, new at every grading (never shown): 1 to 4 heads, 1 to 64 tokens over 1 to 10 ranks (more ranks
    than tokens too), any step, D from 1 to 16, causal or not, softmax_scale left out or set, float32 or float64;
    scores near 1000 in float64 only (in float32 a score's own rounding is then about the tolerance)."""
    g = torch.Generator().manual_seed(seed)

    def draw(*choices):
        return choices[int(torch.randint(len(choices), (), generator=g))]

    def below(n):
        return int(torch.randint(n, (), generator=g))

    heads, seq, dim = draw(1, 1 + below(4)), draw(1, 1 + below(16), 1 + below(64)), draw(1, 1 + below(16))
    world_size = draw(1, 2, 1 + below(10), seq + below(3))
    dtype = draw(torch.float32, torch.float64)
    scale = draw(1.0, 3.0, 300.0 if dtype == torch.float64 else 1.0)
    softmax_scale = draw(None, draw(0.1, 0.5, 2.0 * float(torch.rand((), generator=g))) * dim ** -0.5)
    return _case(below(2 ** 31), heads, seq, dim, world_size, below(world_size), causal=draw(False, True),
                 softmax_scale=softmax_scale, dtype=dtype, scale=scale)
