"""Inputs for blockwise-absmax-quant: Gaussian values with a block of exact ties, a block of
zeros, a block with an outlier, and (for most sizes) a partial last block.

Trusted code: the grader calls it for the correctness cases, and the benchmark calls
`make_inputs` with a fresh seed for every timed repetition.
"""

import math

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
