"""Inputs for triton-flash-attention-forward: fp16 q, k, v [B, H, S, D] and the causal flag.

Trusted code: the grader calls it for the correctness cases, and the benchmark calls `make_inputs`
with a fresh seed for every timed repetition. The interpreter runs a kernel's tile loop in Python,
a few milliseconds a tile, so the correctness cases stay at a few tiles of 64 a side (S = 130 at D = 128,
three: its keys in one tile would be 256 x 128 elements, more than any tile the kata allows).
"""

import random

import torch

# (B, H, S, D, causal); the benchmark times causal attention, the shape's first four
CORRECTNESS_CASES = [(1, 1, 1, 8, True), (1, 2, 37, 16, False), (1, 1, 100, 40, True), (1, 1, 130, 128, False)]


def make_inputs(batch, heads, seq, head_dim, mask=1, seed=0, device="cpu", causal=None, scale=2.0, shift=0.0):
    """q, k, v in fp16 [B, H, S, D] and the causal flag: `causal`, or else a benchmark shape's fifth number,
    `mask` (1 causal, 2 none: where a kernel's padded keys show)."""
    gen = torch.Generator(device=device).manual_seed(seed)
    # q and k of std `scale` put scores at several units (tens before the 1/sqrt(D)): fp16 scores
    # would lose the bits that exp then magnifies.
    q, k = (torch.randn(batch, heads, seq, head_dim, device=device, generator=gen) * scale for _ in range(2))
    v = torch.randn(batch, heads, seq, head_dim, device=device, generator=gen)
    # A shift common to every key moves a row's scores by q . shift: the softmax is unchanged, an exp
    # taken without the running max overflows.
    return q.half(), (k + shift).half(), v.half(), mask == 1 if causal is None else causal


def work(batch, heads, seq, head_dim, mask=1):
    """FLOPs from the shape alone: q k^T and p v, 2 S^2 D each per head, half of it under the causal mask."""
    return (2 if mask == 1 else 4) * batch * heads * seq * seq * head_dim


def cases():
    shaped = [{"name": f"B {b}, H {h}, S {s}, D {d}, {'causal' if c else 'non-causal'} (seed {10 + i})",
               "args": make_inputs(b, h, s, d, seed=10 + i, causal=c)}
              for i, (b, h, s, d, c) in enumerate(CORRECTNESS_CASES)]
    return shaped + [
        {"name": "keys shifted so that scores reach the hundreds: exp overflows without the running max "
                 "(B 1, H 1, S 70, D 16, non-causal: two key tiles of 64, the second partial)",
         "args": make_inputs(1, 1, 70, 16, seed=20, causal=False, scale=1.0, shift=40.0)},
    ]


def fresh(seed):
    """Random S (1-100: one or two tiles of 64, rarely a multiple of a tile), D (1-128), one or two heads or
    batches, causal or not, and sometimes keys with a large common shift."""
    rng = random.Random(seed)
    seq = rng.choice([1, rng.randint(1, 64), rng.randint(1, 100)])
    head_dim = rng.choice([8, 16, 32, 64, 128, rng.randint(1, 128)])
    shift = rng.choice([0.0, 0.0, 0.0, rng.uniform(-40.0, 40.0)])
    batch, heads = rng.choice([(1, 1), (1, 2), (2, 1)])
    return {"args": make_inputs(batch, heads, seq, head_dim, seed=seed % 2**32, causal=rng.random() < 0.5, scale=rng.uniform(0.3, 2.0), shift=shift)}
