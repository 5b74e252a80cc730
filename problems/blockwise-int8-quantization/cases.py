import random

import torch

F32 = torch.float32


def _randn(seed, shape, dtype=F32, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return ((torch.randn(*shape, generator=g) * scale).to(dtype),)


def _case(name, x, block_size):
    return {"name": name, "args": (x, block_size)}


def _ties():
    # Block 0: absmax 127 makes the scale exactly 1, so k + 0.5 are exact ties (half to even:
    # 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -2.5 -> -2). Block 1 is all zeros: scale 0, codes 0.
    return torch.tensor([127.0, 0.5, 1.5, 2.5, -2.5, -0.5, 126.5, -127.0] + [0.0] * 8)


def _zero_blocks():
    (x,) = _randn(3, (40,))
    x[8:16] = 0.0  # a zero block in the middle
    x[32:] = 0.0  # and the (short) last block
    return x


def _outlier():
    (x,) = _randn(4, (8, 32), scale=0.02)
    x[2, 5] = -60.0  # one outlier: only its own block of 64 goes coarse
    return x


def cases():
    return [
        _case("worked example: 5 values, blocks of 2 (last block of 1)",
              torch.tensor([0.5, -1.0, 0.25, 0.125, -3.0]), 2),
        _case("exact ties round half to even; an all-zero block", _ties(), 8),
        _case("all-zero blocks in the middle and at the (short) end", _zero_blocks(), 8),
        _case("empty tensor", torch.zeros(0), 64),
        _case("one element", torch.tensor([-0.3]), 64),
        _case("block_size 1: every code is +-127 or 0", _randn(1, (9,))[0], 1),
        _case("[8, 32] weights with one outlier, blocks of 64", _outlier(), 64),
        _case("1000 values, blocks of 64 (last block of 40)", _randn(5, (1000,))[0], 64),
        _case("fp16 [7, 33], blocks of 32 (widen to fp32 first)", _randn(6, (7, 33), dtype=torch.float16, scale=300.0)[0], 32),
        _case("bf16 [5, 50], blocks of 16", _randn(7, (5, 50), dtype=torch.bfloat16, scale=1e-3)[0], 16),
        _case("tiny magnitudes (1e-30) stay in range", _randn(8, (100,), scale=1e-30)[0], 32),
    ]


def _off_the_halves(x, block_size):
    """x with no code block / scale within 1e-3 of a half (where another order of the same arithmetic
    could round it the other way): such values shrink by 10% in x's dtype until none is left. The value of
    largest magnitude in a block, code 127, never moves, so the scales stay."""
    flat = x.reshape(-1).clone()
    n = flat.numel()
    if n == 0:
        return x
    blocks = -(-n // block_size)
    for _ in range(100):
        wide = torch.zeros(blocks * block_size, dtype=torch.float64)
        wide[:n] = flat.to(F32).double()
        scale = (wide.view(blocks, block_size).abs().amax(dim=1).to(F32) / 127).double()
        scale = torch.where(scale > 0, scale, 1.0).repeat_interleave(block_size)[:n]
        v = wide[:n] / scale
        near = ((v.abs() % 1) - 0.5).abs() < 1e-3
        if not near.any():
            break
        flat[near] = (flat[near].double() * 0.9).to(flat.dtype)
    return flat.reshape(x.shape)


def fresh(seed):
    """A tensor of random shape (empty or 0-d now and then), dtype (float32, float16, bfloat16) and
    magnitude (1e-30 to a few hundred; fp16 from 1e-3), in blocks of a random size (1, a power of two,
    any, or beyond the tensor; dividing its size or not), with now and then zero blocks, an outlier and
    a block of exact ties on a power-of-two scale; elsewhere no code within 1e-3 of a half."""
    rng = random.Random(seed)
    g = torch.Generator().manual_seed(rng.getrandbits(62))
    dtype = rng.choice([F32, F32, torch.float16, torch.bfloat16])
    shape = rng.choices([(0,), (rng.randint(0, 3), 0), (), (rng.randint(1, 2000),), (rng.randint(1, 40), rng.randint(1, 50)),
                         (rng.randint(1, 8), rng.randint(1, 8), rng.randint(1, 30))], weights=[1, 1, 1, 6, 6, 5])[0]
    n = torch.Size(shape).numel()
    block_size = rng.choice([1, rng.randint(2, 8), 2 ** rng.randint(4, 8), 2 ** rng.randint(4, 8),
                             rng.randint(1, max(1, n)), n + rng.randint(1, 50)])
    block_size = max(block_size, -(-n // 64))  # at most 64 blocks (the reference loops over them)
    top = 60000.0 if dtype == torch.float16 else 1e6
    magnitude = 10.0 ** rng.uniform(-3 if dtype == torch.float16 else -30, 2.5)
    flat = torch.randn(n, generator=g, dtype=torch.float64) * magnitude
    blocks = -(-n // block_size)
    ties = None
    if n and rng.random() < 0.25:  # exact ties: absmax 127 * 2**e makes the scale 2**e exactly
        b = rng.randrange(blocks)
        size = min(block_size, n - b * block_size)
        codes = torch.randint(-127, 127, (size,), generator=g).double() + 0.5
        codes[int(torch.randint(size, (), generator=g))] = rng.choice([127.0, -127.0])
        ties = b, codes * 2.0 ** rng.randint(-10 if dtype == torch.float16 else -30, 8)
    if n and rng.random() < 0.3:
        i = rng.randrange(n)
        flat[i] = rng.choice([-1, 1]) * min(top, magnitude * rng.uniform(10, 1000))
    for b in range(blocks):
        if rng.random() < 0.1:
            flat[b * block_size:(b + 1) * block_size] = 0.0
    x = _off_the_halves(flat.to(dtype), block_size).reshape(-1)
    if ties is not None:
        b, values = ties
        x[b * block_size:b * block_size + values.numel()] = values.to(dtype)
    return {"args": (x.reshape(shape), block_size)}
