import torch


def _ranks(seed, W, n, dtype=torch.float32, scale=1.0, positive=False):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        xs = [torch.randn(n, generator=g, dtype=torch.float64) * scale for _ in range(W)]
        return [(x.abs() if positive else x).to(dtype) for x in xs]
    return [torch.randint(-1000, 1000, (n,), generator=g, dtype=dtype) for _ in range(W)]


def _example():
    # Rank r holds [10r, 10r + 1, ..., 10r + 7]; the sum is [60, 64, 68, ..., 88].
    return [torch.arange(8, dtype=torch.float32) + 10 * r for r in range(4)]


def cases():
    return [
        {"name": "example: W = 4, n = 8 (chunks of 2)", "args": (_example(),)},
        {"name": "W = 1: nothing to send", "args": (_ranks(1, 1, 6),)},
        {"name": "W = 2", "args": (_ranks(2, 2, 9),)},
        {"name": "W = 8, n = 1024 (divisible): 2 * 7/8 * 1024 = 1792 each", "args": (_ranks(3, 8, 1024),)},
        {"name": "n = 10 not divisible by W = 4 (chunks 3, 3, 2, 2)", "args": (_ranks(4, 4, 10),)},
        {"name": "n = 3 < W = 5 (two empty chunks)", "args": (_ranks(5, 5, 3),)},
        {"name": "n = 0, W = 3", "args": ([torch.zeros(0) for _ in range(3)],)},
        {"name": "int64 tensors, W = 5, n = 23: exact", "args": (_ranks(6, 5, 23, torch.int64),)},
        {"name": "float64, W = 7, n = 100 (100 = 7 * 14 + 2)", "args": (_ranks(7, 7, 100, torch.float64),)},
        {"name": "W = 6, n = 61, positive values ~1e6", "args": (_ranks(8, 6, 61, scale=1e6, positive=True),)},
    ]


def fresh(seed):
    """Random ranks, new at every grading (never shown): W from 1 to 8, n from 0 to 1024 (divisible by W or not,
    fewer elements than ranks), float32 or float64 values of scale 1 (or positive ones near 1e6), or int64."""
    g = torch.Generator().manual_seed(seed)

    def draw(*choices):
        return choices[int(torch.randint(len(choices), (), generator=g))]

    def below(n):
        return int(torch.randint(n, (), generator=g))

    W = draw(1, 2, 4, 8, 1 + below(8))
    n = draw(0, below(W + 1), W * below(129), below(1025))
    dtype = draw(torch.float32, torch.float64, torch.int64)
    positive = dtype.is_floating_point and draw(False, True)  # summing signed values of 1e6 would cancel
    return {"args": (_ranks(below(2 ** 31), W, n, dtype, scale=1e6 if positive else 1.0, positive=positive),)}
