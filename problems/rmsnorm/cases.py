import random

import torch

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16


def _random(seed, shape, dtype, scale=1.0, eps=1e-6, zero_rows=()):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g) * scale
    for r in zero_rows:
        x[r] = 0.0
    w = 1.0 + 0.1 * torch.randn(shape[-1], generator=g)
    return (x.to(dtype), w.to(dtype), eps)


def _tiny_rows(seed, dtype, scales):
    # Rows scaled down so that mean(x**2) is at or below eps, which then dominates the norm.
    x, w, _ = _random(seed, (len(scales), 32), dtype)
    x = (x.float() * torch.tensor(scales)[:, None]).to(dtype)
    return (x, w)


def cases():
    return [
        {"name": "example: [1, 2, 3, 4], weight [1, 1, 0.5, 2]",
         "args": (torch.tensor([[1.0, 2.0, 3.0, 4.0]]), torch.tensor([1.0, 1.0, 0.5, 2.0]), 1e-6)},
        {"name": "a zero row (rstd = 1 / sqrt(eps)) among others", "args": _random(1, (3, 8), F32, zero_rows=(1,))},
        {"name": "eps = 1e-5 (LLaMA 1), float32 [4, 48]", "args": _random(2, (4, 48), F32, eps=1e-5)},
        {"name": "tiny rows (~1e-4), eps left at its default 1e-6: eps dominates, bf16",
         "args": _tiny_rows(3, BF16, [1e-4, 3e-4, 1e-3, 1.0])},
        {"name": "eps = 1e-3 beside rows of ~1e-2 to 1e-1: eps dominates, float32",
         "args": _tiny_rows(10, F32, [1e-2, 3e-2, 1e-1]), "kwargs": {"eps": 1e-3}},
        {"name": "fp16 values ~500: x ** 2 overflows float16", "args": _random(4, (4, 64), F16, scale=500.0)},
        {"name": "fp16 with a zero row", "args": _random(5, (3, 40), F16, zero_rows=(2,))},
        {"name": "bf16 hidden states [2, 5, 256]", "args": _random(6, (2, 5, 256), BF16)},
        {"name": "bf16 LLaMA-7B width [4, 4096]", "args": _random(7, (4, 4096), BF16, scale=3.0)},
        {"name": "one feature (d = 1)", "args": _random(8, (5, 1), F32)},
        {"name": "no rows ([0, 16])", "args": _random(9, (0, 16), BF16)},
    ]


def fresh(seed):
    """Random rows (0-3 leading dims, d 1-300) in a random dtype and scale (1e-4 to 500, eps-dominated rows
    included), sometimes with zero rows, eps given or left to its default, new at every grading."""
    rng = random.Random(seed)
    dtype = rng.choice([F32, F16, BF16])
    lead = tuple(rng.randint(0 if rng.random() < 0.1 else 1, 6) for _ in range(rng.randint(0, 3)))
    shape = lead + (rng.choice([1, 2, 3, rng.randint(1, 64), rng.randint(1, 300)]),)
    rows = 1
    for n in lead:
        rows *= n
    x, w, eps = _random(seed % 2 ** 32, shape, dtype, scale=10 ** rng.uniform(-4, 2.7),
                        eps=rng.choice([1e-6, 1e-5, 1e-3, 10 ** rng.uniform(-8, -2)]))
    if rows and lead and rng.random() < 0.3:
        x.view(-1, shape[-1])[rng.randrange(rows)] = 0.0
    if eps == 1e-6 and rng.random() < 0.5:
        return {"args": (x, w)}
    return {"args": (x, w), "kwargs": {"eps": eps}} if rng.random() < 0.5 else {"args": (x, w, eps)}
