"""Inputs for fused-row-softmax: logits with masked (-inf) entries and rows shifted by +1000.

Trusted code: the grader calls it for the correctness cases, and the benchmark calls
`make_inputs` with a fresh seed for every timed repetition.
"""

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
