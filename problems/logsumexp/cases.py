import torch

INF = float("inf")
F32, F16, BF16, F64 = torch.float32, torch.float16, torch.bfloat16, torch.float64


def _random(seed, shape, dtype=F32, scale=1.0, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=F64) * scale + shift).to(dtype)


def _cancelling():
    # Row r holds 8 copies of -log(8) + d_r: the result, d_r, is m + log(8) with m = -log(8) + d_r,
    # a sum that cancels. In float16, log(8) alone is off by half a step (1e-3), which is larger than
    # d_r; a computation in float32 or float64 rounds once, at the end.
    d = torch.tensor([[1e-3], [-2e-3], [5e-4], [0.0]], dtype=F64)
    return ((d - torch.log(torch.tensor(8.0, dtype=F64))).expand(4, 8).to(F16), 1)


def cases():
    return [
        {"name": "example: [1, 2, 3] -> 3.4076059644", "args": (torch.tensor([1.0, 2.0, 3.0]), 0)},
        {"name": "masked entries (-inf) and a fully masked row (-> -inf)",
         "args": (torch.tensor([[0.5, -INF, 1.5, -INF], [-INF, -INF, -INF, -INF], [-INF, 2.0, -INF, -INF]]), -1)},
        {"name": "+inf entries (-> +inf), also next to -inf",
         "args": (torch.tensor([[INF, 1.0, -INF], [INF, INF, 0.0], [3.0, -2.0, 1.0]]), 1)},
        {"name": "values ~ +1000 and ~ -1000 (exp overflows / underflows)",
         "args": (torch.tensor([[1000.0, 1000.0, 999.0], [-1000.0, -1000.0, -1001.0]]), 1)},
        {"name": "dim = 0 of a [5, 7] matrix", "args": (_random(1, (5, 7), scale=3.0), 0)},
        {"name": "keepdim = True, dim 1 of [2, 6, 3]", "args": (_random(2, (2, 6, 3)), 1, True)},
        {"name": "keepdim = True, dim -2 of [4, 1, 5]", "args": (_random(3, (4, 1, 5), scale=10.0), -2, True)},
        {"name": "a single element along dim: [4, 1] over dim 1", "args": (_random(4, (4, 1)), 1)},
        {"name": "[1, 1, 1] over dim 0 (keep the other size-1 dims)", "args": (torch.tensor([[[2.5]]]), 0)},
        {"name": "empty slice: [3, 0] over dim 1 (-> -inf)", "args": (torch.zeros(3, 0), 1)},
        {"name": "fp16 rows of 8 x (d - log 8): results near 0, where m + log(sum) cancels", "args": _cancelling()},
        {"name": "fp16 logits ~ 20 (exp(20) > 65504)", "args": (_random(5, (3, 50), F16, scale=2.0, shift=20.0), -1)},
        {"name": "bf16 vocabulary logits [4, 32000]", "args": (_random(6, (4, 32000), BF16, scale=4.0), -1)},
    ]


def _rounds_alike(x, dim):
    """Whether every finite result keeps its bf16 rounding under a relative change of 1e-5 (a float32
    computation's error): otherwise a right answer could land one bf16 step (more than 4e-3) away."""
    if x.dtype != BF16 or x.numel() == 0 or x.shape[dim] == 0:
        return True
    exact = torch.logsumexp(x.to(F64), dim)
    exact = exact[torch.isfinite(exact)]
    return bool(((exact * (1 + 1e-5)).to(BF16) == (exact * (1 - 1e-5)).to(BF16)).all())


def fresh(seed):
    """A random tensor, new at every grading (never shown): 1 to 3 dimensions (size 1 and empty ones too), any
    dim (negative too), keepdim or not, float16 to float64, values of scale 1 to 100 shifted up to +-1000, masked
    (-inf) entries and fully masked slices, +inf entries."""
    g = torch.Generator().manual_seed(seed)

    def draw(*choices):
        return choices[int(torch.randint(len(choices), (), generator=g))]

    def below(n):
        return int(torch.randint(n, (), generator=g))

    while True:
        shape = [draw(1, 1 + below(8), 1 + below(40)) for _ in range(1 + below(3))]
        dim = below(len(shape)) - draw(0, len(shape))  # as likely negative as not
        if draw(*[False] * 9, True):
            shape[dim] = 0  # an empty slice: -inf
        elif draw(*[False] * 7, True):
            shape[dim] = 1 + below(32000)  # a vocabulary
            for i in range(len(shape)):
                shape[i] = shape[i] if i == dim % len(shape) else min(shape[i], 2)
        dtype = draw(F32, F64, F16, BF16)
        x = _random(below(2 ** 31), shape, F64, scale=draw(1.0, 3.0, 10.0, 100.0), shift=draw(0.0, 20.0, -20.0, 1000.0,
                                                                                            -1000.0))
        if draw(False, True):
            x[torch.rand(shape, generator=g) < draw(0.1, 0.5, 0.9)] = -INF
        if x.numel() and draw(False, True):  # fully masked slices along dim
            rows = torch.rand(x.sum(dim, keepdim=True).shape, generator=g) < 0.3
            x[rows.expand_as(x)] = -INF
        if x.numel() and draw(False, False, True):  # a few +inf entries (some beside -inf)
            x.view(-1)[torch.randint(x.numel(), (1 + below(3),), generator=g)] = INF
        x = x.to(dtype)
        if _rounds_alike(x, dim):
            break
    form = below(3)
    if form == 0:
        return {"args": (x, dim)}
    if form == 1:
        return {"args": (x, dim, draw(False, True))}
    return {"args": (x, dim), "kwargs": {"keepdim": draw(False, True)}}
