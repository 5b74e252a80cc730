"""Inputs for fused-swiglu: bf16 gate and up projections, with rows of large gates (sigmoid
saturates; a naive exp(g) / (1 + exp(g)) overflows) and a row of zero gates.

No output lies near a bf16 rounding tie: where silu(g) * u in fp32 is within 2**-16 (relative) of
the midpoint between two bf16 values, `up` is moved one bf16 step away. Any fp32 computation
(errors of a few 1e-7) then rounds to the reference's bits, and the tolerance can refuse a second
rounding, which a kernel computing silu in bf16 makes.

Trusted code: the grader calls it for the correctness cases, and the benchmark calls
`make_inputs` with a fresh seed for every timed repetition.
"""

import random

import torch

CORRECTNESS_SHAPES = [(1, 1), (3, 7), (5, 300), (17, 1000)]


def make_inputs(rows, columns, seed=0, device="cpu"):
    gen = torch.Generator(device=device).manual_seed(seed)
    gate = torch.randn(rows, columns, device=device, generator=gen) * 2
    up = torch.randn(rows, columns, device=device, generator=gen)
    gate[1::4] *= 60  # gates of +-100 and beyond: exp(g) overflows fp32 above 88.7
    gate[2::4] = 0.0  # silu(0) = 0
    gate, up = gate.to(torch.bfloat16), up.to(torch.bfloat16)
    return (gate, _away_from_ties(gate, up))


def _away_from_ties(gate, up, margin=2.0 ** -16):
    g = gate.float()
    silu = g * torch.sigmoid(g)
    for _ in range(8):  # a step of up moves the product by ~2**-8: a second try is rare, an eighth never seen
        y = silu * up.float()
        near = (y * (1 - margin)).to(torch.bfloat16) != (y * (1 + margin)).to(torch.bfloat16)
        if not bool(near.any()):
            return up
        up = torch.where(near, (up.float() * (1 + 2.0 ** -7)).to(torch.bfloat16), up)
    raise AssertionError("inputs near a bf16 rounding tie remain")


def work(rows, columns):
    """Bytes from the shape alone: read gate and up, write out, 2 bytes each (bf16)."""
    return 6 * rows * columns


def cases():
    return [{"name": f"{rows} x {columns} (seed {10 + i})", "args": make_inputs(rows, columns, seed=10 + i)}
            for i, (rows, columns) in enumerate(CORRECTNESS_SHAPES)]


def fresh(seed):
    """A random shape (any number of elements, mostly not a multiple of a block; a few thousand for the
    interpreter), gates of a random spread with rows of large and of zero gates, kept off bf16 ties."""
    rng = random.Random(seed)
    columns = rng.choice([1, 2, rng.randint(1, 64), rng.randint(1, 2048), rng.randint(1, 16384)])
    rows = rng.randint(1, max(1, min(40, 40_000 // columns)))
    gen = torch.Generator().manual_seed(rng.randrange(2**62))
    gate = torch.randn(rows, columns, generator=gen) * rng.uniform(0.5, 8.0)
    up = torch.randn(rows, columns, generator=gen) * 10 ** rng.uniform(-2.0, 2.0)
    for row in range(rows):
        kind = rng.random()
        if kind < 0.15:
            gate[row] *= rng.uniform(20.0, 100.0)  # +-100 and beyond: exp(g) overflows
        elif kind < 0.25:
            gate[row] = 0.0
    gate, up = gate.to(torch.bfloat16), up.to(torch.bfloat16)
    return {"args": (gate, _away_from_ties(gate, up))}
