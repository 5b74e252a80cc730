"""Inputs for triton-fused-cross-entropy: bf16 logits [N, V] and int64 targets, some ignored (-100).

Trusted code: the grader calls it for the correctness cases, and the benchmark calls `make_inputs` with a
fresh seed for every timed repetition. The interpreter runs a kernel's loop in Python, so the cases keep
to a few rows of a few tiles.
"""

import random

import torch

IGNORE_INDEX = -100
CORRECTNESS_SHAPES = [(3, 1), (3, 1000), (2, 2500)]


def make_inputs(rows, vocab, seed=0, device="cpu", spread=3.0, shift=0.0):
    gen = torch.Generator(device=device).manual_seed(seed)
    logits = torch.randn(rows, vocab, device=device, generator=gen) * spread + shift
    target = torch.randint(0, vocab, (rows,), device=device, generator=gen)
    # Every fourth row (from the third) is padding, as in a batch of packed sequences.
    target[2::4] = IGNORE_INDEX
    return logits.bfloat16(), target


def work(rows, vocab):
    """Bytes from the shape alone: the bf16 logits read twice (the sum, then the gradient), the bf16 gradient
    written once."""
    return 6 * rows * vocab


def cases():
    shaped = [{"name": f"N {n}, V {v} (seed {10 + i})", "args": make_inputs(n, v, seed=10 + i)}
              for i, (n, v) in enumerate(CORRECTNESS_SHAPES)]
    return shaped + [
        {"name": "N 1, V 2100, flat logits (spread 0.01): a sum of about 2100, past what fp16 or bf16 counts in ones",
         "args": make_inputs(1, 2100, seed=20, spread=0.01)},
        {"name": "N 2, V 1100, logits shifted by +200: exp overflows fp32 without the max",
         "args": make_inputs(2, 1100, seed=21, shift=200.0)},
    ]


def fresh(seed):
    """Random rows (1-6) and vocabulary (1-4000: one to four tiles of 1024, rarely a multiple of a tile), a random
    spread, sometimes a large shift; every fourth row from the third ignored."""
    rng = random.Random(seed)
    vocab = rng.choice([1, 2, rng.randint(1, 1024), rng.randint(1, 4000)])
    return {"args": make_inputs(rng.randint(1, 6), vocab, seed=seed % 2**32, spread=10 ** rng.uniform(-2, 1),
                                shift=rng.choice([0.0, 0.0, rng.uniform(-300.0, 300.0)]))}
