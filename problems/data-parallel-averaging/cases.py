import random

import torch

BF16 = torch.bfloat16


def _ranks(seed, counts, shapes, scale=1.0, offset=0.0):
    g = torch.Generator().manual_seed(seed)
    return [[(torch.randn(*s, generator=g) * scale + offset).to(BF16) for s in shapes] for _ in counts], list(counts)


def _example():
    return [[torch.tensor([1.0, 2.0], dtype=BF16)], [torch.tensor([3.0, 4.0], dtype=BF16)]], [1, 3]


def _empty_rank_nan():
    grads, counts = _ranks(3, [512, 0, 1536, 100], [(4, 4), (4,)])
    grads[1] = [torch.full_like(t, float("nan")) for t in grads[1]]  # mean over 0 tokens = 0/0
    return grads, counts


def _linear_regression():
    # Real per-rank gradients: y = x @ w, loss = mean over a rank's tokens of (x @ w - y)^2 / 2.
    # The token-weighted average of the ranks' mean-loss gradients is the gradient of the mean
    # loss over all tokens.
    g = torch.Generator().manual_seed(9)
    w = torch.randn(6, 3, generator=g, dtype=torch.float64)
    counts = [5, 37, 2, 120]
    grads = []
    for n in counts:
        x = torch.randn(n, 6, generator=g, dtype=torch.float64)
        y = torch.randn(n, 3, generator=g, dtype=torch.float64)
        grads.append([(x.T @ (x @ w - y) / n).to(BF16)])
    return grads, counts


def cases():
    return [
        {"name": "example: 1 and 3 tokens, [1, 2] and [3, 4] -> [2.5, 3.5]", "args": _example()},
        {"name": "equal token counts: the plain mean", "args": _ranks(1, [256] * 4, [(8, 8), (8,)])},
        {"name": "8 ranks, packed sequences of unequal length", "args": _ranks(2, [4096, 3100, 4096, 512, 2048, 4000, 77, 3900], [(16, 8), (8,), (3, 5, 2)])},
        {"name": "a rank with 0 tokens has NaN gradients", "args": _empty_rank_nan()},
        {"name": "no tokens on any rank: zeros", "args": ([[torch.full((3,), float("nan"), dtype=BF16)], [torch.full((3,), float("nan"), dtype=BF16)]], [0, 0])},
        {"name": "a single rank", "args": _ranks(4, [1000], [(5, 5)])},
        {"name": "64 ranks, gradients near 1: a bf16 accumulator loses digits", "args": _ranks(5, [1 + 37 * r for r in range(64)], [(32,)], 0.01, 1.0)},
        {"name": "a million tokens on one rank, 10 on another", "args": _ranks(6, [1_000_000, 10, 250_000], [(6, 6)], 1e-3)},
        {"name": "a 0-dim parameter and an empty one", "args": ([[torch.tensor(2.0, dtype=BF16), torch.zeros(0, 3, dtype=BF16)], [torch.tensor(-1.0, dtype=BF16), torch.zeros(0, 3, dtype=BF16)]], [3, 1])},
        {"name": "real gradients of a linear regression split 5 / 37 / 2 / 120", "args": _linear_regression()},
    ]


def _counts(rng, ranks):
    """Token counts of a random kind: equal, uneven, very unequal (up to 1e6 against a few), with zeros
    now and then (all of them rarely)."""
    kind = rng.choice(["equal", "uneven", "uneven", "unequal"])
    if kind == "equal":
        counts = [rng.randint(1, 4096)] * ranks
    elif kind == "uneven":
        counts = [rng.randint(1, 5000) for _ in range(ranks)]
    else:
        counts = [int(10 ** rng.uniform(0, 6)) for _ in range(ranks)]
    if rng.random() < 0.3:
        for r in rng.sample(range(ranks), rng.randint(1, ranks)):
            counts[r] = 0
    if rng.random() < 0.9 and not any(counts):
        counts[rng.randrange(ranks)] = rng.randint(1, 1000)
    return counts


def fresh(seed):
    """Random ranks (1 to 64) and token counts (equal, uneven or up to 1e6 against a few; zeros, whose
    gradients are NaN now and then), and 1 to 4 parameters of random shapes (0-dim and empty now and then)
    with bf16 gradients of random scale and offset, halved (exactly) until float32 rounding in any order
    of the sum stays well inside the tolerance."""
    rng = random.Random(seed)
    ranks = rng.choice([1, rng.randint(2, 8), rng.randint(2, 8), rng.randint(2, 64), rng.randint(2, 64)])
    counts = _counts(rng, ranks)
    shapes = [rng.choices([(), (0,), (rng.randint(1, 3), 0), (rng.randint(1, 64),), (rng.randint(1, 12), rng.randint(1, 12)),
                           (rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4))], weights=[1, 1, 1, 5, 5, 3])[0]
              for _ in range(rng.randint(1, 4))]
    grads, counts = _ranks(rng.getrandbits(62), counts, [s or (1,) for s in shapes], 10.0 ** rng.uniform(-4, 1),
                           rng.choice([0.0, 0.0, rng.uniform(-2, 2)]))
    grads = [[t.reshape(s) for t, s in zip(rank, shapes, strict=True)] for rank in grads]  # (1,) made 0-dim
    total = sum(counts)
    for i in range(len(shapes)):
        while total:
            weighted = sum(g[i].double().abs() * n for g, n in zip(grads, counts, strict=True) if n) / total
            expected = sum(g[i].double() * n for g, n in zip(grads, counts, strict=True) if n) / total
            if (weighted * (2 * ranks ** 0.5 + 2) * 2.0 ** -24 <= 0.5 * (1e-6 + 1e-5 * expected.abs())).all():
                break
            for g in grads:
                g[i] = g[i] / 2
    if rng.random() < 0.5:
        for g, n in zip(grads, counts, strict=True):
            if n == 0:
                g[:] = [torch.full_like(t, float("nan")) for t in g]
    return {"args": (grads, counts)}
