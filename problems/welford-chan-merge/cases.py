import random

import torch

F64 = torch.float64


def _t(values):
    return torch.tensor(values, dtype=F64)


def _shards(seed, sizes, offset=0.0, scale=1.0, rank_offsets=None):
    """sizes[r] lists the chunk lengths rank r sees; values offset + scale * N(0, 1) (plus rank r's offset)."""
    g = torch.Generator().manual_seed(seed)
    shards = []
    for r, chunks in enumerate(sizes):
        shift = offset + (rank_offsets[r] if rank_offsets else 0.0)
        shards.append([shift + scale * torch.randn(n, generator=g, dtype=F64) for n in chunks])
    return shards


def cases():
    return [
        {"name": "example: rank 0 sees [1, 2] then [3], rank 1 sees [4, 5, 6]",
         "args": ([[_t([1.0, 2.0]), _t([3.0])], [_t([4.0, 5.0, 6.0])]],)},
        {"name": "values 1e9 + N(0, 1): sums of squares lose every digit", "args": (_shards(1, [[50, 30], [80], [10, 10, 10], [64]], offset=1e9),)},
        {"name": "chunks of 1 to 4 values around 1e9: each chunk's M2 near 1",
         "args": (_shards(8, [[1, 2, 3, 2, 1, 4] * 3, [2, 2, 2], [1] * 9], offset=1e9),)},
        {"name": "empty chunks and a rank with no data", "args": (_shards(2, [[0, 5, 0, 7], [], [3, 0], [0]]),)},
        {"name": "5 ranks: the odd one passes through a tree level", "args": (_shards(3, [[4], [6, 2], [9], [1, 1, 1], [12]]),)},
        {"name": "one rank", "args": (_shards(4, [[10, 20, 30]], offset=-3.0),)},
        {"name": "correction 0 (population variance)", "args": (_shards(5, [[7], [9, 3]], scale=2.5),),
         "kwargs": {"correction": 0}},
        {"name": "two values in all, correction 1: var = M2 / 1", "args": ([[_t([2.0])], [_t([5.0])]],)},
        {"name": "one value in all: the sample variance is undefined (NaN)", "args": ([[_t([]), _t([3.5])], []],)},
        {"name": "no data at all", "args": ([[_t([])], []],)},
        {"name": "ranks with different means (0, 1e6, -1e6) and sizes (1 to 4000)",
         "args": (_shards(6, [[1], [4000], [300, 300], [2]], rank_offsets=[0.0, 1e6, -1e6, 5.0]),)},
        {"name": "8 ranks x 20 chunks of 300 around 1e6, correction 2", "args": (_shards(7, [[300] * 20] * 8, offset=1e6, scale=0.01),),
         "kwargs": {"correction": 2}},
    ]


def fresh(seed):
    """Random shards (1-9 ranks of 0-8 chunks of 0-200 values, empty chunks and ranks included) around a random
    offset (up to 1e9) with per-rank offsets, correction 0-2, new at every grading."""
    rng = random.Random(seed)
    ranks = rng.randint(1, 9)
    sizes = [[rng.choice([0, 1, 2, rng.randint(0, 20), rng.randint(0, 200)]) for _ in range(rng.randint(0, 8))]
             for _ in range(ranks)]
    offset = rng.choice([0.0, rng.uniform(-10, 10), 10 ** rng.uniform(0, 9) * rng.choice([-1, 1])])
    rank_offsets = [rng.choice([0.0, rng.uniform(-100, 100), 10 ** rng.uniform(0, 6) * rng.choice([-1, 1])])
                    for _ in range(ranks)] if rng.random() < 0.4 else None
    farthest = abs(offset) + max(map(abs, rank_offsets or [0.0]))
    # The spread stays at least 1e-6 of the values (float64 resolves 2e-16 of them), and no chunk's own spread
    # is far below it: a chunk's M2 is then known to ~1e-8 relative whichever stable method computes it
    # (Welford's, one value at a time, included), far inside the 1e-6 tolerance.
    scale = max(10 ** rng.uniform(-2, 2), farthest * 1e-6)
    while True:
        shards = _shards(rng.randrange(2 ** 32), sizes, offset=offset, scale=scale, rank_offsets=rank_offsets)
        if all(chunk.std(correction=0) >= 0.01 * scale for chunks in shards for chunk in chunks if chunk.numel() > 1):
            break
    correction = rng.choice([1, 1, 0, 2])
    if correction == 1 and rng.random() < 0.5:
        return {"args": (shards,)}
    return {"args": (shards,), "kwargs": {"correction": correction}}
