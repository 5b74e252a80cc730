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
