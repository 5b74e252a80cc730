import random

import torch

F16, BF16 = torch.float16, torch.bfloat16


def _example():
    x = torch.tensor([[1.0, 2.0, -1.0, 0.5]], dtype=F16)
    w_q = torch.tensor([[10, -3], [-20, 7], [5, 127], [-128, 0]], dtype=torch.int8)
    scales = torch.tensor([[0.01, 0.5]])
    return (x, w_q, scales, None)


def _example_groups():
    x = torch.tensor([[1.0, 2.0, -1.0, 0.5, 4.0]], dtype=BF16)
    w_q = torch.tensor([[10, -3], [-20, 7], [5, 127], [-128, 0], [1, -1]], dtype=torch.int8)
    scales = torch.tensor([[0.01, 0.5], [0.02, 0.25], [1.0, 2.0]])   # groups rows 0-1, 2-3, 4
    return (x, w_q, scales, 2)


def _random(seed, lead, K, N, group_size, dtype, zero_scale_cols=()):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*lead, K, generator=g).to(dtype)
    w_q = torch.randint(-128, 128, (K, N), generator=g, dtype=torch.int8)
    groups = 1 if group_size is None else -(-K // group_size)
    # absmax scales of weights with std ~0.02 per group: ~0.1 / 127, varying per group and column
    scales = (torch.rand(groups, N, generator=g) * 1.5 + 0.25) * (0.1 / 127) / K ** 0.5 * 16
    for c in zero_scale_cols:
        scales[:, c] = 0.0
    return (x, w_q, scales, group_size)


def cases():
    return [
        {"name": "example: per output channel, K=4, N=2", "args": _example()},
        {"name": "example: groups of 2, K=5 (last group has 1 row)", "args": _example_groups()},
        {"name": "per output channel, bf16 [8, 64] @ [64, 32]", "args": _random(1, (8,), 64, 32, None, BF16)},
        {"name": "groups of 32, K=128, fp16", "args": _random(2, (4,), 128, 48, 32, F16)},
        {"name": "groups of 32, K=100 (groups 32, 32, 32, 4), bf16", "args": _random(3, (5,), 100, 24, 32, BF16)},
        {"name": "group size 1 (a scale per row)", "args": _random(4, (3,), 16, 8, 1, F16)},
        {"name": "group size > K (one group)", "args": _random(5, (3,), 40, 8, 64, BF16)},
        {"name": "empty batch (M = 0)", "args": _random(6, (0,), 64, 16, 32, F16)},
        {"name": "3-D activations [2, 3, 96], groups of 64 (K=96 not divisible)", "args": _random(7, (2, 3), 96, 40, 64, BF16)},
        {"name": "zero scales (pruned output channels)", "args": _random(8, (4,), 64, 16, 16, F16, zero_scale_cols=(0, 7))},
        {"name": "layer [16, 512] @ [512, 256], groups of 128, bf16", "args": _random(9, (16,), 512, 256, 128, BF16)},
    ]


def fresh(seed):
    """Random K, N, leading dims (possibly 0 rows), group size (None, 1, not dividing K, or above K), dtype and
    zeroed scale columns."""
    rng = random.Random(seed)
    K, N = rng.randint(1, 200), rng.randint(1, 64)
    lead = tuple(rng.choice([0, 1, 2, 3, 5]) if rng.random() < 0.1 else rng.randint(1, 6)
                 for _ in range(rng.choice([1, 1, 2, 3])))
    group_size = rng.choice([None, 1, rng.randint(1, K), rng.randint(1, K), rng.randint(K, K + 40)])
    zero_cols = tuple(rng.sample(range(N), rng.randint(1, min(3, N)))) if rng.random() < 0.2 else ()
    return {"args": _random(rng.randrange(2**62), lead, K, N, group_size, rng.choice([F16, BF16]), zero_cols)}
