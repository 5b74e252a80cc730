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
