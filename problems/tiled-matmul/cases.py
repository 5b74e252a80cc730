"""Inputs for tiled-matmul: fp16 activations x [M, K] and an nn.Linear weight [N, K].

Trusted code: the grader calls it for the correctness cases, and the benchmark calls `make_inputs`
with a fresh seed for every timed repetition.
"""

import random

import torch

CORRECTNESS_SHAPES = [(1, 1, 1), (17, 33, 65), (64, 48, 129), (128, 96, 200)]


def make_inputs(m, n, k, seed=0, device="cpu"):
    gen = torch.Generator(device=device).manual_seed(seed)
    x = torch.randn(m, k, device=device, generator=gen).half()
    weight = torch.randn(n, k, device=device, generator=gen).half()  # [out_features, in_features]
    return (x, weight)


def work(m, n, k):
    """FLOPs from the shape alone: a multiply and an add for each of the m * n * k terms."""
    return 2 * m * n * k


def cases():
    shaped = [{"name": f"x {m} x {k}, weight {n} x {k} (seed {10 + i})", "args": make_inputs(m, n, k, seed=10 + i)}
              for i, (m, n, k) in enumerate(CORRECTNESS_SHAPES)]
    return shaped + [{"name": "x 40 x 70, weight 24 x 70: K not a multiple of 16, N smaller than a tile",
                      "args": make_inputs(40, 24, 70, seed=20)}]


def fresh(seed):
    """x [M, K] and weight [N, K] of random sizes (M, N 1-130, K 1-256: edges of no tile size), new at every
    grading."""
    rng = random.Random(seed)
    m, n, k = (rng.choice([1, rng.randint(1, hi)]) for hi in (130, 130, 256))
    return {"args": make_inputs(m, n, k, seed=seed % 2 ** 32)}
