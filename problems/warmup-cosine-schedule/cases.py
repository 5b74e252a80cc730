import random

import torch

I64 = torch.int64


def _range(n):
    return torch.arange(n, dtype=I64)


def _random(seed, n, high):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, high, (n,), generator=g, dtype=I64)


def cases():
    return [
        {"name": "example: warmup 4, total 10, max 1.0, min 0.1, steps 0..12", "args": (_range(13), 1.0, 0.1, 4, 10)},
        {"name": "nanoGPT shakespeare-char: 1e-3 -> 1e-4, warmup 100, total 5000", "args": (_random(1, 200, 6000), 1e-3, 1e-4, 100, 5000)},
        {"name": "LLaMA-like: 3e-4 -> 3e-5, warmup 2000, total 250000, around the boundaries",
         "args": (torch.tensor([0, 1, 1998, 1999, 2000, 2001, 125999, 126000, 249999, 250000, 250001, 10**9], dtype=I64), 3e-4, 3e-5, 2000, 250000)},
        {"name": "warmup 0: the cosine starts at max_lr on step 0", "args": (_range(12), 1e-3, 0.0, 0, 10)},
        {"name": "total == warmup: no decay phase, min_lr from total on", "args": (_range(9), 2.0, 0.5, 5, 5)},
        {"name": "warmup 0 and total 0: min_lr everywhere", "args": (_range(4), 1.0, 0.25, 0, 0)},
        {"name": "min_lr == max_lr after warmup (constant)", "args": (_range(10), 5e-4, 5e-4, 3, 8)},
        {"name": "steps far past the end", "args": (torch.tensor([10**6, 10**7, 2**40], dtype=I64), 1.0, 0.1, 10, 100)},
        {"name": "a 2-D tensor of steps, unsorted", "args": (_random(2, 24, 60).reshape(4, 6), 1.0, 0.0, 7, 50)},
        {"name": "a 0-dim step", "args": (torch.tensor(3, dtype=I64), 1.0, 0.1, 4, 10)},
        {"name": "no steps (empty tensor)", "args": (torch.zeros(0, dtype=I64), 1.0, 0.1, 4, 10)},
    ]


def fresh(seed):
    """A random schedule (warmup 0-3000, decay 0-300000 steps, min_lr 0, equal to max_lr or between) on a random
    tensor of steps (0-dim, empty, 1-D or 2-D, unsorted, around every boundary and far past the end), new at
    every grading."""
    rng = random.Random(seed)
    max_lr = 10 ** rng.uniform(-5, 1)
    min_lr = rng.choice([0.0, max_lr, max_lr * rng.uniform(0.0, 1.0)])
    warmup = rng.choice([0, rng.randint(0, 10), rng.randint(0, 3000)])
    total = warmup + rng.choice([0, rng.randint(0, 10), rng.randint(0, 300000)])
    marks = [0, warmup - 1, warmup, warmup + 1, total - 1, total, total + 1, (warmup + total) // 2]
    pool = [t for t in marks if t >= 0] + [rng.randint(0, 2 * total + 10) for _ in range(rng.randint(0, 40))]
    pool += [rng.randint(0, 2 ** 40)] if rng.random() < 0.3 else []
    rng.shuffle(pool)
    form = rng.choice(["0-dim", "empty", "1-D", "1-D", "2-D"])
    if form == "0-dim":
        steps = torch.tensor(pool[0], dtype=I64)
    elif form == "empty":
        steps = torch.zeros(0, dtype=I64)
    elif form == "1-D":
        steps = torch.tensor(pool, dtype=I64)
    else:
        rows = rng.choice([d for d in range(1, len(pool) + 1) if len(pool) % d == 0])
        steps = torch.tensor(pool, dtype=I64).reshape(rows, -1)
    return {"args": (steps, max_lr, min_lr, warmup, total)}
