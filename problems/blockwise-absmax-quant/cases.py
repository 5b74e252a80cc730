"""Inputs for blockwise-absmax-quant: Gaussian values with a block of exact ties, a block of
zeros, a block with an outlier, and (for most sizes) a partial last block.

Trusted code: the grader calls it for the correctness cases, and the benchmark calls
`make_inputs` with a fresh seed for every timed repetition.
"""

import math
import random

import torch

BLOCK = 256
CORRECTNESS_SHAPES = [(1,), (300,), (1000,), (70001,)]


def make_inputs(n, seed=0, device="cpu"):
    gen = torch.Generator(device=device).manual_seed(seed)
    x = torch.randn(n, device=device, generator=gen)
    # Block 0: absmax 127 makes the step exactly 1, and every other value is a tie k + 0.5.
    ties = torch.cat([torch.tensor([127.0, -127.0]), torch.arange(-127, 127, dtype=torch.float32) + 0.5])
    x[:BLOCK] = ties[: min(n, BLOCK)].to(device)
    x[BLOCK:2 * BLOCK] = 0.0  # block 1: all zeros
    x[2 * BLOCK + 7:2 * BLOCK + 8] = 1000.0  # block 2: one outlier squeezes the rest towards 0
    return (x,)


def work(n):
    """Bytes from the shape alone: read x (4), write the codes (1) and the round trip (4) per
    element, and 4 per block for the absmax."""
    return 9 * n + 4 * math.ceil(n / BLOCK)


def cases():
    return [{"name": f"{n} values (seed {10 + i})", "args": make_inputs(n, seed=10 + i)}
            for i, (n,) in enumerate(CORRECTNESS_SHAPES)]


def fresh(seed):
    """A random length (1 to 2,600: under one block, whole blocks, a partial last block) of Gaussian,
    heavy-tailed or uniform values of random magnitude, with now and then a block of exact ties (on a
    power-of-two step), a block of zeros and an outlier; elsewhere no value sits within 1e-3 of a code's
    half (where another order of the same arithmetic could round it the other way)."""
    rng = random.Random(seed)
    g = torch.Generator().manual_seed(rng.getrandbits(62))
    n = rng.choice([1, rng.randint(1, BLOCK), BLOCK * rng.randint(1, 10), rng.randint(BLOCK + 1, 2600),
                    rng.randint(BLOCK + 1, 2600)])
    blocks = -(-n // BLOCK)
    x = torch.randn(n, generator=g, dtype=torch.float64)
    kind = rng.choice(["gauss", "heavy", "uniform"])
    if kind == "heavy":
        x = x ** 3
    elif kind == "uniform":
        x = torch.rand(n, generator=g, dtype=torch.float64) * 2 - 1
    x = (x * 10.0 ** rng.uniform(-4, 3)).to(torch.float32)
    exact = torch.zeros(n, dtype=torch.bool)  # the block of ties: left as it is
    if rng.random() < 0.3:
        b = rng.randrange(blocks)
        size = min(BLOCK, n - b * BLOCK)
        codes = torch.randint(-127, 127, (size,), generator=g).float() + 0.5
        codes[int(torch.randint(size, (), generator=g))] = rng.choice([127.0, -127.0])
        x[b * BLOCK:b * BLOCK + size] = codes * 2.0 ** rng.randint(-10, 10)  # step 2**e exactly
        exact[b * BLOCK:b * BLOCK + size] = True
    if blocks > 1 and rng.random() < 0.3:
        b = rng.randrange(blocks)
        x[b * BLOCK:(b + 1) * BLOCK] = 0.0
        exact[b * BLOCK:(b + 1) * BLOCK] = True
    if rng.random() < 0.3:
        i = rng.randrange(n)
        x[i] = rng.choice([-1, 1]) * max(float(x.abs().max()), 1e-3) * rng.uniform(10, 1000)
        exact[i // BLOCK * BLOCK:(i // BLOCK + 1) * BLOCK] = False  # its block's ties are ties no more
    # The step of each block as the reference computes it; codes near a half move toward 0 by 0.002 codes.
    padded = torch.zeros(blocks * BLOCK)
    padded[:n] = x
    step = padded.view(blocks, BLOCK).abs().amax(dim=1) * (1.0 / 127.0)
    step = torch.where(step > 0, step, 1.0).repeat_interleave(BLOCK)[:n]
    v = x.double() / step.double()
    near = (((v.abs() % 1) - 0.5).abs() < 1e-3) & ~exact
    x = torch.where(near, x - x.sign() * 2e-3 * step, x)
    return {"args": (x,)}
