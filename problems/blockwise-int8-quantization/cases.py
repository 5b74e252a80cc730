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
