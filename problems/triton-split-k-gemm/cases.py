"""Inputs for triton-split-k-gemm: fp16 activations x [M, K] and an nn.Linear weight [N, K] scaled by
K ** -0.5 (as nn.Linear initialises it), so outputs stay near 1 at every K.

Trusted code: the grader calls it for the correctness cases, and the benchmark calls `make_inputs`
with a fresh seed for every timed repetition.
"""

import random

import torch

CORRECTNESS_SHAPES = [(1, 1, 1), (17, 33, 1000), (70, 65, 300), (4, 130, 400)]


def make_inputs(m, n, k, seed=0, device="cpu"):
    gen = torch.Generator(device=device).manual_seed(seed)
    x = torch.randn(m, k, device=device, generator=gen).half()
    weight = (torch.randn(n, k, device=device, generator=gen) * k ** -0.5).half()  # [out_features, in_features]
    return (x, weight)


def work(m, n, k):
    """Bytes from the shape alone: read both fp16 operands once and write the fp32 output once."""
    return 2 * (m + n) * k + 4 * m * n


def cases():
    return [{"name": f"x {m} x {k}, weight {n} x {k} (seed {10 + i})", "args": make_inputs(m, n, k, seed=10 + i)}
            for i, (m, n, k) in enumerate(CORRECTNESS_SHAPES)]


def fresh(seed):
    """x [M, K] and weight [N, K] of random sizes (M, N 1-70, K 1-600: edges of no tile or split size; a few
    tiles and K steps, for the interpreter), new at every grading."""
    rng = random.Random(seed)
    m, n, k = (rng.choice([1, rng.randint(1, hi)]) for hi in (70, 70, 600))
    return {"args": make_inputs(m, n, k, seed=seed % 2 ** 32)}
