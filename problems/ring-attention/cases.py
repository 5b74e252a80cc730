import torch


def _qkv(seed, heads, seq, dim, dtype=torch.float32, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(heads, seq, dim, generator=g, dtype=torch.float64) * scale
    k = torch.randn(heads, seq, dim, generator=g, dtype=torch.float64)
    v = torch.randn(heads, seq, dim, generator=g, dtype=torch.float64)
    return tuple(t.to(dtype) for t in (q, k, v))


def _example():
    q = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]])
    k = torch.tensor([[[1.0, 0.0], [0.0, 2.0], [-1.0, 0.0], [1.0, 1.0]]])
    v = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [-1.0, 3.0]]])
    return q, k, v


def cases():
    return [
        {"name": "example: 1 head, 4 tokens over 2 ranks", "args": (*_example(), 2)},
        {"name": "one rank: nothing moves", "args": (*_qkv(1, 2, 7, 4), 1)},
        {"name": "causal, 16 tokens over 4 ranks: later chunks fully masked", "args": (*_qkv(2, 2, 16, 8), 4, True)},
        {"name": "causal, 10 tokens over 4 ranks (chunks 3, 3, 2, 2), softmax_scale 0.5",
         "args": (*_qkv(3, 3, 10, 4), 4, True), "kwargs": {"softmax_scale": 0.5}},
        {"name": "3 tokens over 5 ranks: two ranks hold nothing", "args": (*_qkv(4, 2, 3, 4), 5)},
        {"name": "causal, 4 heads, 64 tokens over 8 ranks", "args": (*_qkv(5, 4, 64, 16), 8, True)},
        {"name": "scores near 1000: partial results merged without overflow", "args": (*_qkv(6, 2, 24, 8, scale=300.0), 3)},
        {"name": "float64, causal, 50 tokens over 6 ranks, softmax_scale 0.05",
         "args": (*_qkv(7, 2, 50, 8, dtype=torch.float64), 6, True), "kwargs": {"softmax_scale": 0.05}},
        # Last, so that a method's other mistakes show first: the S x S scores of this case (2 heads x 2048^2
        # x 4 bytes = 32 MiB) do not fit the worker's 24 MiB, while a rank's step (its 256 queries against the
        # 256 keys it holds) takes 512 KiB.
        {"name": "causal, 2 heads, 2048 tokens over 8 ranks: the S x S scores (32 MiB) exceed the 24 MiB limit",
         "args": (*_qkv(8, 2, 2048, 16), 8, True)},
    ]


def fresh(seed):
    """Random q, k, v, new at every grading (never shown): 1 to 4 heads, 1 to 64 tokens over 1 to 10 ranks (more
    ranks than tokens too), D from 1 to 16, causal or not, softmax_scale left out or set, float32 or float64; scores
    near 1000 in float64 only (in float32 a score's own rounding is then about the tolerance)."""
    g = torch.Generator().manual_seed(seed)

    def draw(*choices):
        return choices[int(torch.randint(len(choices), (), generator=g))]

    def below(n):
        return int(torch.randint(n, (), generator=g))

    heads, seq, dim = draw(1, 1 + below(4)), draw(1, 1 + below(16), 1 + below(64)), draw(1, 1 + below(16))
    world_size = draw(1, 2, 1 + below(10), seq + below(3))
    dtype = draw(torch.float32, torch.float64)
    scale = draw(1.0, 3.0, 300.0 if dtype == torch.float64 else 1.0)
    args = (*_qkv(below(2 ** 31), heads, seq, dim, dtype, scale=scale), world_size)
    causal = draw(None, False, True)
    if causal is not None:
        args = (*args, causal)
    if draw(False, True):
        factor = draw(0.1, 0.5, 2.0 * float(torch.rand((), generator=g)))  # of the default, 1 / sqrt(D)
        return {"args": args, "kwargs": {"softmax_scale": factor * dim ** -0.5}}
    return {"args": args}
