import random

import torch

F64 = torch.float64
LAB_VALUES = [10.0, 20.0, 30.0]


def _plain(values, weights, block_size):
    return (torch.tensor(values, dtype=F64), torch.tensor(weights, dtype=F64), block_size)


def _random(seed, n, block_size, zero_blocks=()):
    g = torch.Generator().manual_seed(seed)
    values = torch.randn(n, generator=g) * 3 + 1
    weights = torch.rand(n, generator=g)
    for k in zero_blocks:
        weights[k * block_size:(k + 1) * block_size] = 0
    return (values, weights, block_size)


def cases():
    return [
        # Equal block weights (3 and 3): the unweighted mean of the block means is right here.
        {"name": "lab: weights [2, 1, 3], blocks of 2", "args": _plain(LAB_VALUES, [2, 1, 3], 2)},
        # Block weights 3 and 4: only the weighted merge gives 160/7.
        {"name": "lab: weights [2, 1, 4], blocks of 2", "args": _plain(LAB_VALUES, [2, 1, 4], 2)},
        {"name": "one block (block_size = N)", "args": _plain([1.0, 2.0, 4.0, 8.0], [1, 3, 0.5, 2], 4)},
        {"name": "block_size larger than N", "args": _plain([5.0, -1.0], [0.25, 0.75], 16)},
        {"name": "blocks of 1", "args": _plain([3.0, 1.0, 4.0, 1.0, 5.0], [1, 2, 3, 4, 5], 1)},
        {"name": "a zero-weight block in the middle", "args": _plain([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1, 1, 0, 0, 2, 2], 2)},
        {"name": "float32, 1000 values, blocks of 64 (last block 40)", "args": _random(1, 1000, 64)},
        {"name": "float32, blocks of 7 with two zero-weight blocks", "args": _random(2, 100, 7, zero_blocks=(0, 9))},
    ]


def fresh(seed):
    """Random values (float32 or float64, any sign and offset) and weights (uniform, whole counts or
    spread over six decades, some 0) of a random length (1 to 2,000), in blocks of a random size (1,
    dividing N or not, N, or beyond), with now and then zero-weight blocks (never all of them)."""
    rng = random.Random(seed)
    g = torch.Generator().manual_seed(rng.getrandbits(62))
    dtype = rng.choice([F64, torch.float32])
    n = rng.choice([1, rng.randint(2, 16), rng.randint(2, 1000 if dtype == torch.float32 else 2000)])
    block_size = rng.choice([1, rng.randint(1, 8), rng.randint(1, n), rng.randint(1, n), n, n + rng.randint(1, 20)])
    block_size = max(block_size, -(-n // 200))  # at most 200 blocks (the reference loops over them)
    values = torch.randn(n, generator=g, dtype=F64) * 10.0 ** rng.uniform(-2, 1.5) + rng.uniform(-20, 20)
    kind = rng.choice(["uniform", "counts", "decades"])
    if kind == "uniform":
        weights = torch.rand(n, generator=g, dtype=F64)
    elif kind == "counts":
        weights = torch.randint(0, 100, (n,), generator=g).to(F64)
    else:
        weights = 10.0 ** (torch.rand(n, generator=g, dtype=F64) * 6 - 3)
    weights[torch.rand(n, generator=g) < rng.choice([0.0, 0.1, 0.5])] = 0.0
    blocks = -(-n // block_size)
    for k in range(blocks):
        if rng.random() < 0.15:
            weights[k * block_size:(k + 1) * block_size] = 0.0
    if weights.sum() == 0:
        weights[rng.randrange(n)] = rng.uniform(0.1, 10)
    return {"args": (values.to(dtype), weights.to(dtype), block_size)}
