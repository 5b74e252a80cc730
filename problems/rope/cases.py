import random

import torch

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16


def _q(seed, shape, dtype):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


def _range(start, n):
    return torch.arange(start, start + n, dtype=torch.int64)


def _example():
    return (torch.tensor([[[[1.0, 2.0, 3.0, 4.0]], [[1.0, 2.0, 3.0, 4.0]]]]), _range(0, 2))


def _per_sequence_offsets():
    # Continuous batching: three sequences at different points of their KV caches.
    starts = torch.tensor([[0], [37], [512]])
    return (_q(6, (3, 4, 2, 32), F32), starts + torch.arange(4))


def cases():
    return [
        {"name": "example: head_dim 4, positions [0, 1]", "args": _example()},
        {"name": "position 0 is the identity", "args": (_q(1, (2, 1, 3, 8), F32), _range(0, 1))},
        {"name": "prefill [2, 8, 4, 16], positions 0..7", "args": (_q(2, (2, 8, 4, 16), F32), _range(0, 8))},
        {"name": "KV cache: 8 new tokens at positions 100..107", "args": (_q(3, (2, 8, 4, 16), F32), _range(100, 8))},
        {"name": "decode step: 1 token at position 4095, bf16", "args": (_q(4, (4, 1, 8, 64), BF16), _range(4095, 1))},
        {"name": "per-sequence positions [3, 4] (offsets 0, 37, 512)", "args": _per_sequence_offsets()},
        {"name": "bf16 [2, 16, 8, 64] at positions 1000..1015", "args": (_q(7, (2, 16, 8, 64), BF16), _range(1000, 16))},
        {"name": "fp16, head_dim 128", "args": (_q(8, (1, 5, 2, 128), F16), _range(3, 5))},
        {"name": "head_dim 2 (a single rotation pair)", "args": (_q(9, (1, 6, 1, 2), F32), _range(0, 6))},
        {"name": "base 500000 (LLaMA 3) at positions 8190..8199", "args": (_q(10, (1, 10, 2, 64), F32), _range(8190, 10), 500000.0)},
        {"name": "empty sequence (seq = 0)", "args": (torch.zeros(2, 0, 4, 16), _range(0, 0))},
    ]


def fresh(seed):
    """A random [batch, seq, heads, head_dim] (head_dim even, seq possibly 0) in a random dtype, positions from
    a random KV-cache offset below 10**4 (shared, or per sequence), base given or left at 10000, new at every
    grading."""
    rng = random.Random(seed)
    batch, seq, heads = rng.randint(1, 4), rng.choice([0, 1, rng.randint(1, 16)]), rng.randint(1, 4)
    dim = 2 * rng.choice([1, rng.randint(1, 8), rng.randint(1, 64)])
    q = _q(seed % 2 ** 32, (batch, seq, heads, dim), rng.choice([F32, F16, BF16]))
    # Positions stay below 10**4, where float32 angles (as most implementations use) are within the tolerance.
    if rng.random() < 0.5:
        positions = _range(rng.choice([0, rng.randrange(10 ** rng.randint(2, 4) - seq)]), seq)
    else:
        starts = torch.tensor([[rng.randrange(10 ** rng.randint(2, 4) - seq)] for _ in range(batch)])
        positions = starts + torch.arange(seq)
    if rng.random() < 0.5:
        return {"args": (q, positions)}
    return {"args": (q, positions, rng.choice([10000.0, 500000.0, 1e6, float(rng.randint(100, 10 ** 6))]))}
