"""Inputs for fused-swiglu: bf16 gate and up projections, with rows of large gates (sigmoid
saturates; a naive exp(g) / (1 + exp(g)) overflows) and a row of zero gates.

Trusted code: the grader calls it for the correctness cases, and the benchmark calls
`make_inputs` with a fresh seed for every timed repetition.
"""

import torch

CORRECTNESS_SHAPES = [(1, 1), (3, 7), (5, 300), (17, 1000)]


def make_inputs(rows, columns, seed=0, device="cpu"):
    gen = torch.Generator(device=device).manual_seed(seed)
    gate = torch.randn(rows, columns, device=device, generator=gen) * 2
    up = torch.randn(rows, columns, device=device, generator=gen)
    gate[1::4] *= 60  # gates of +-100 and beyond: exp(g) overflows fp32 above 88.7
    gate[2::4] = 0.0  # silu(0) = 0
    return (gate.to(torch.bfloat16), up.to(torch.bfloat16))


def work(rows, columns):
    """Bytes from the shape alone: read gate and up, write out, 2 bytes each (bf16)."""
    return 6 * rows * columns


def cases():
    return [{"name": f"{rows} x {columns} (seed {10 + i})", "args": make_inputs(rows, columns, seed=10 + i)}
            for i, (rows, columns) in enumerate(CORRECTNESS_SHAPES)]
