"""Inputs for fused-row-softmax: logits with masked (-inf) entries and rows shifted by +1000.

Trusted code: the grader calls it for the correctness cases, and the benchmark calls
`make_inputs` with a fresh seed for every timed repetition.
"""

import random

import torch

CORRECTNESS_SHAPES = [(1, 1), (5, 7), (33, 1000), (8, 4096)]


def make_inputs(rows, columns, seed=0, device="cpu"):
    gen = torch.Generator(device=device).manual_seed(seed)
    x = torch.randn(rows, columns, device=device, generator=gen) * 4
    masked = torch.rand(rows, columns, device=device, generator=gen) < 0.1
    masked[:, 0] = False  # every row keeps a finite entry: an all -inf row has no softmax
    x = x.masked_fill(masked, float("-inf"))
    x[1::4] += 1000.0  # exp(1000) overflows fp32: only a max-shifted softmax survives these rows
    return (x,)


def work(rows, columns):
    """Bytes from the shape alone: read x and write the output once, fp32."""
    return 8 * rows * columns


def cases():
    return [{"name": f"{rows} x {columns} (seed {10 + i})", "args": make_inputs(rows, columns, seed=10 + i)}
            for i, (rows, columns) in enumerate(CORRECTNESS_SHAPES)]


def fresh(seed):
    """A random shape (any columns up to 16384; a few thousand values for the interpreter), logits of a random
    spread, a random share of -inf (a finite entry anywhere in each row, sometimes only one), and rows shifted
    by up to +-3000."""
    rng = random.Random(seed)
    columns = rng.choice([1, 2, rng.randint(1, 64), rng.randint(1, 2048), rng.randint(1, 16384)])
    rows = rng.randint(1, max(1, min(12, 12_000 // columns)))  # the interpreter runs a program per row
    gen = torch.Generator().manual_seed(rng.randrange(2**62))
    x = torch.randn(rows, columns, generator=gen) * 10 ** rng.uniform(-1.0, 1.3)
    masked = torch.rand(rows, columns, generator=gen) < rng.choice([0.0, 0.1, 0.5, 0.9, 1.0])
    masked[torch.arange(rows), torch.randint(0, columns, (rows,), generator=gen)] = False  # one finite entry kept
    x = x.masked_fill(masked, float("-inf"))
    shifts = torch.tensor([rng.choice([0.0, 0.0, 1000.0, -1000.0, rng.uniform(-3000.0, 3000.0)]) for _ in range(rows)])
    return {"args": (x + shifts[:, None],)}
