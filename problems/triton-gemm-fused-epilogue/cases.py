"""Inputs for triton-gemm-fused-epilogue: fp16 activations x [M, K], an nn.Linear weight [N, K] and bias [N],
scaled so that the pre-activations are of order 1 (where GELU's approximations differ), and every eighth token
an outlier whose pre-activations reach the tens (where exp(2u) overflows fp32).

Trusted code: the grader calls it for the correctness cases, and the benchmark calls `make_inputs`
with a fresh seed for every timed repetition.
"""

import random

import torch

CORRECTNESS_SHAPES = [(1, 1, 1), (17, 33, 65), (64, 48, 129)]


def make_inputs(m, n, k, seed=0, device="cpu", activation="gelu_tanh"):
    gen = torch.Generator(device=device).manual_seed(seed)
    x = torch.randn(m, k, device=device, generator=gen)
    x[::8] *= 40.0  # outlier tokens (rows 0, 8, 16, ...): pre-activations in the tens
    weight = torch.randn(n, k, device=device, generator=gen) * k ** -0.5  # [out_features, in_features]
    bias = torch.randn(n, device=device, generator=gen) * 0.5
    return (x.half(), weight.half(), bias.half(), activation)


def work(m, n, k):
    """FLOPs from the shape alone: a multiply and an add for each of the m * n * k terms (the epilogue's few
    per output are not counted)."""
    return 2 * m * n * k


def cases():
    shaped = [{"name": f"x {m} x {k}, weight {n} x {k}, GELU (seed {10 + i})", "args": make_inputs(m, n, k, seed=10 + i)}
              for i, (m, n, k) in enumerate(CORRECTNESS_SHAPES)]
    return shaped + [
        {"name": "x 40 x 70, weight 24 x 70, SiLU", "args": make_inputs(40, 24, 70, seed=20, activation="silu")},
        {"name": "x 130 x 40, weight 130 x 40, SiLU: partial tiles in both dimensions",
         "args": make_inputs(130, 130, 40, seed=21, activation="silu")},
    ]


def fresh(seed):
    """M, N 1-130, K 1-160 (edges of no tile size), either activation; new at every grading."""
    rng = random.Random(seed)
    m, n, k = (rng.choice([1, rng.randint(1, hi)]) for hi in (130, 130, 160))
    return {"args": make_inputs(m, n, k, seed=seed % 2 ** 32, activation=rng.choice(["gelu_tanh", "silu"]))}
