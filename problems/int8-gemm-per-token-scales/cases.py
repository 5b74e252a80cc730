import torch

F32, BF16, F16 = torch.float32, torch.bfloat16, torch.float16


def _randn(g, *shape, scale=1.0):
    return torch.randn(*shape, generator=g) * scale


def _layer(seed, m, k, n, dtype=F32, bias=False, outlier_channel=None):
    g = torch.Generator().manual_seed(seed)
    x = _randn(g, m, k)
    if outlier_channel is not None:
        x[:, outlier_channel] *= 60.0  # LLM activations: a few input channels carry huge values
    w = _randn(g, n, k, scale=k ** -0.5)
    b = _randn(g, n) if bias else None
    return x.to(dtype), w.to(dtype), None if b is None else b.to(dtype)


def _example():
    x = torch.tensor([[1.0, -2.0, 0.5, 4.0], [0.0, 0.25, -0.5, 0.125]])
    w = torch.tensor([[0.5, 1.0, -1.0, 0.0], [2.0, 0.0, 0.0, -2.0], [0.1, 0.2, 0.3, 0.4]])
    return x, w


def _zeros(seed):
    # A zero token (row 2 of x), a zero activation channel (column 3), a zero input column of the
    # weight (column 5) and a zero output channel (row 1 of the weight), with smoothing on.
    x, w, b = _layer(seed, 4, 24, 6, bias=True)
    x[2] = 0.0
    x[:, 3] = 0.0
    w[:, 5] = 0.0
    w[1] = 0.0
    return x, w, b


def _saturated(seed, m, k, n):
    # Values near each row's absmax, so the codes are near +-127 and the int32 sums pass 2**24,
    # where float32 stops holding every integer.
    g = torch.Generator().manual_seed(seed)
    sign = torch.where(torch.rand(m, k, generator=g) < 0.1, -1.0, 1.0)
    x = sign * (0.9 + 0.1 * torch.rand(m, k, generator=g)) * 3.0
    w = (0.9 + 0.1 * torch.rand(n, k, generator=g)) * 0.02
    return x, w


def cases():
    x, w = _example()
    zx, zw, zb = _zeros(4)
    sx, sw = _saturated(7, 3, 4096, 5)
    return [
        {"name": "worked example: 2 tokens, K 4, 3 output channels", "args": (x, w)},
        {"name": "fp32 with bias: M 5, K 64, N 16", "args": _layer(1, 5, 64, 16, bias=True)},
        {"name": "an outlier activation channel, smooth_alpha 0.5 (SmoothQuant)",
         "args": _layer(2, 6, 128, 12, outlier_channel=17), "kwargs": {"smooth_alpha": 0.5}},
        {"name": "outlier channel without smoothing: one channel sets every token's scale",
         "args": _layer(3, 6, 128, 12, outlier_channel=17)},
        {"name": "smooth_alpha 0.8: zero token, zero activation channel, zero weight column and channel",
         "args": (zx, zw, zb), "kwargs": {"smooth_alpha": 0.8}},
        {"name": "bf16 activations, weights and bias", "args": _layer(5, 7, 96, 10, dtype=BF16, bias=True)},
        {"name": "fp16, smooth_alpha 0.25", "args": _layer(6, 4, 80, 9, dtype=F16), "kwargs": {"smooth_alpha": 0.25}},
        {"name": "K 4096 near-saturated codes: int32 sums past 2**24", "args": (sx, sw)},
        {"name": "decode: one token, one output channel, bias", "args": _layer(8, 1, 33, 1, bias=True)},
    ]


def fresh(seed):
    """A random layer, new at every grading (never shown): M, K, N from 1 (K up to 4096), fp32, fp16 or bf16,
    with or without a bias, an outlier channel, zero tokens, channels and weight columns, and smoothing with an
    alpha anywhere in [0, 1] (its ends included) or none."""
    g = torch.Generator().manual_seed(seed)

    def draw(*choices):
        return choices[int(torch.randint(len(choices), (), generator=g))]

    def below(n):
        return int(torch.randint(n, (), generator=g))

    m, n = draw(1, 2, 1 + below(16)), draw(1, 3, 1 + below(24))
    k = draw(1, 2, 1 + below(128), 1 + below(1024), 1 + below(4096))
    x, w, b = _layer(below(2 ** 31), m, k, n, dtype=F32, bias=draw(True, False),
                     outlier_channel=draw(None, below(k)))
    if draw(False, True):  # the zeros of a padding token, a dead channel, a pruned weight column / output channel
        for t, dim in ((x, 0), (x, 1), (w, 1), (w, 0)):
            if draw(False, True):
                t.select(dim, below(t.shape[dim])).zero_()
    dtype = draw(F32, F16, BF16)
    args = tuple(None if t is None else t.to(dtype) for t in (x, w, b))
    alpha = draw(None, 0.0, 1.0, 0.5, round(float(torch.rand((), generator=g)), 3))
    if alpha is None and draw(False, True):
        return {"args": args if b is not None else args[:2]}
    return {"args": args, "kwargs": {"smooth_alpha": alpha}}
