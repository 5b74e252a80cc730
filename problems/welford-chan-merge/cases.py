"""One arrival per rank: the state each rank carries (the count, mean and M2 of values it saw earlier,
summarized here and never sent) and the chunk that arrives now. The earlier values are not in the
case, so the state is the only thing a solution can build on."""
import random

import torch

F64 = torch.float64


def _t(values):
    return torch.tensor(values, dtype=F64)


def _summary(values):
    """The state of values seen earlier: what a rank carries instead of them."""
    if values.numel() == 0:
        return [0.0, 0.0, 0.0]
    mean = values.mean()
    return [float(values.numel()), float(mean), float(((values - mean) ** 2).sum())]


def _ranks(seed, sizes, offset=0.0, scale=1.0, rank_offsets=None):
    """sizes[r] = (values rank r saw earlier, values in the chunk arriving now); values offset + scale * N(0, 1)
    (plus rank r's offset). -> (states [P, 3], chunks)."""
    g = torch.Generator().manual_seed(seed)
    states, chunks = [], []
    for r, (earlier, now) in enumerate(sizes):
        shift = offset + (rank_offsets[r] if rank_offsets else 0.0)
        states.append(_summary(shift + scale * torch.randn(earlier, generator=g, dtype=F64)))
        chunks.append(shift + scale * torch.randn(now, generator=g, dtype=F64))
    return _t(states).reshape(-1, 3), chunks


def cases():
    return [
        {"name": "example: rank 0 carries [1, 2] and receives [3], rank 1 carries nothing and receives [4, 5, 6]",
         "args": (_t([[2.0, 1.5, 0.5], [0.0, 0.0, 0.0]]), [_t([3.0]), _t([4.0, 5.0, 6.0])])},
        {"name": "values 1e9 + N(0, 1): sums of squares lose every digit",
         "args": _ranks(1, [(50, 30), (0, 80), (20, 10), (64, 0)], offset=1e9)},
        {"name": "chunks of 1 to 4 values around 1e9: each chunk's M2 near 1",
         "args": _ranks(8, [(33, 1), (4, 2), (8, 3), (1, 4), (0, 2)], offset=1e9)},
        {"name": "empty chunks and a rank with no data", "args": _ranks(2, [(5, 0), (0, 0), (3, 7), (0, 0)])},
        {"name": "5 ranks: the odd one passes through a tree level",
         "args": _ranks(3, [(0, 4), (6, 2), (9, 0), (2, 1), (12, 12)])},
        {"name": "one rank", "args": _ranks(4, [(30, 30)], offset=-3.0)},
        {"name": "correction 0 (population variance)", "args": _ranks(5, [(7, 3), (9, 3)], scale=2.5),
         "kwargs": {"correction": 0}},
        {"name": "two values in all, correction 1: var = M2 / 1", "args": (_t([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0]]),
                                                                          [_t([]), _t([5.0])])},
        {"name": "one value in all: the sample variance is undefined (NaN)",
         "args": (_t([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), [_t([3.5]), _t([])])},
        {"name": "no data at all", "args": (_t([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), [_t([]), _t([])])},
        {"name": "ranks with different means (0, 1e6, -1e6) and sizes (1 to 4000)",
         "args": _ranks(6, [(0, 1), (3000, 1000), (300, 300), (1, 1)], rank_offsets=[0.0, 1e6, -1e6, 5.0])},
        {"name": "8 ranks carrying 5700 values around 1e6, each receiving 300, correction 2",
         "args": _ranks(7, [(5700, 300)] * 8, offset=1e6, scale=0.01), "kwargs": {"correction": 2}},
    ]


def fresh(seed):
    """Random ranks (1-9, each carrying the state of 0-2000 earlier values and receiving 0-200, empty ones
    included) around a random offset (up to 1e9) with per-rank offsets, correction 0-2, new at every grading."""
    rng = random.Random(seed)
    ranks = rng.randint(1, 9)
    sizes = [(rng.choice([0, 1, rng.randint(0, 50), rng.randint(0, 2000)]),
              rng.choice([0, 1, 2, rng.randint(0, 20), rng.randint(0, 200)])) for _ in range(ranks)]
    offset = rng.choice([0.0, rng.uniform(-10, 10), 10 ** rng.uniform(0, 9) * rng.choice([-1, 1])])
    rank_offsets = [rng.choice([0.0, rng.uniform(-100, 100), 10 ** rng.uniform(0, 6) * rng.choice([-1, 1])])
                    for _ in range(ranks)] if rng.random() < 0.4 else None
    farthest = abs(offset) + max(map(abs, rank_offsets or [0.0]))
    # The spread stays at least 1e-6 of the values (float64 resolves 2e-16 of them), and no chunk's own spread
    # is far below it: a chunk's M2 is then known to ~1e-8 relative whichever stable method computes it
    # (Welford's, one value at a time, included), far inside the 1e-6 tolerance.
    scale = max(10 ** rng.uniform(-2, 2), farthest * 1e-6)
    while True:
        states, chunks = _ranks(rng.randrange(2 ** 32), sizes, offset=offset, scale=scale, rank_offsets=rank_offsets)
        if all(chunk.std(correction=0) >= 0.01 * scale for chunk in chunks if chunk.numel() > 1):
            break
    correction = rng.choice([1, 1, 0, 2])
    if correction == 1 and rng.random() < 0.5:
        return {"args": (states, chunks)}
    return {"args": (states, chunks), "kwargs": {"correction": correction}}
