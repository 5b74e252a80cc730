import random

import torch


def _mlp(seed, lead, d, h, d_out, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*lead, d, generator=g, dtype=torch.float64)
    w1 = torch.randn(h, d, generator=g, dtype=torch.float64) / d ** 0.5
    b1 = torch.randn(h, generator=g, dtype=torch.float64) * 0.1
    w2 = torch.randn(d_out, h, generator=g, dtype=torch.float64) / h ** 0.5
    b2 = torch.randn(d_out, generator=g, dtype=torch.float64)
    return tuple(t.to(dtype) for t in (x, w1, b1, w2, b2))


def _example():
    x = torch.tensor([[1.0, 2.0]])
    w1 = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]])
    b1 = torch.zeros(4)
    w2 = torch.tensor([[1.0, 1.0, 1.0, 1.0]])
    b2 = torch.tensor([0.5])
    return (x, w1, b1, w2, b2)


def cases():
    return [
        {"name": "example: d 2, h 4, tp 2", "args": _example() + (2,)},
        {"name": "tp 1: one rank holds everything", "args": _mlp(1, (3,), 8, 16, 8) + (1,)},
        {"name": "tp 4, h 32 (even split)", "args": _mlp(2, (5,), 8, 32, 8) + (4,)},
        {"name": "h 10 over tp 4: shards 3, 3, 2, 2", "args": _mlp(3, (4,), 6, 10, 5) + (4,)},
        {"name": "h 3 over tp 5: two ranks hold nothing", "args": _mlp(4, (2,), 4, 3, 4) + (5,)},
        {"name": "tp == h: one hidden unit per rank", "args": _mlp(5, (3,), 5, 6, 3) + (6,)},
        {"name": "3-D input [2, 5, 16], h = 4 * 16, tp 8 (Megatron's 4x MLP)", "args": _mlp(6, (2, 5), 16, 64, 16) + (8,)},
        {"name": "d_out != d, h 21 over tp 8", "args": _mlp(7, (7,), 12, 21, 5) + (8,)},
        {"name": "float64, h 40 over tp 3", "args": _mlp(8, (4, 2), 10, 40, 10, torch.float64) + (3,)},
    ]


def fresh(seed):
    """A random MLP (h 1-64 over tp 1-8, even, uneven or tp > h; 0-2 leading dims; d, d_out 1-24) in float32 or
    float64, new at every grading."""
    rng = random.Random(seed)
    lead = tuple(rng.randint(1, 6) for _ in range(rng.randint(0, 2)))
    tp = rng.randint(1, 8)
    h = rng.choice([rng.randint(1, 64), tp * rng.randint(1, 64 // tp)])
    dtype = rng.choice([torch.float32, torch.float64])
    return {"args": _mlp(seed % 2 ** 32, lead, rng.randint(1, 24), h, rng.randint(1, 24), dtype) + (tp,)}
