"""Inputs for triton-int8-matmul-scaled: int8 codes a [M, K] (activations, a scale per row) and b [N, K] (an
nn.Linear weight, a scale per output channel), float32 scales that are not powers of two (so every rounding of
the epilogue shows), and mostly flat rows of codes, whose int32 sums pass 2**24 once K is past about 1350,
where float32 stops holding every integer.

Trusted code: the grader calls it for the correctness cases, and the benchmark calls `make_inputs`
with a fresh seed for every timed repetition.
"""

import random

import torch

CORRECTNESS_SHAPES = [(1, 1, 1), (17, 33, 65), (64, 48, 129), (6, 8, 2048)]


def _scales(count, gen, device):
    return torch.rand(count, device=device, generator=gen) * 0.02 + 1e-4  # absmax / 127 of real activations


def _codes(rows, k, gen, device):
    # Every fourth row (3, 7, ...) has codes over the whole int8 range, -128 included; the others are flat, as a
    # quantizer gives for a row of similar values: 100 to 127, of one sign but for 2%. Two flat rows' sum is
    # about 12,500 K.
    codes = torch.randint(-128, 128, (rows, k), device=device, generator=gen)
    sign = torch.where(torch.rand(rows, k, device=device, generator=gen) < 0.02, -1, 1)
    flat = sign * torch.randint(100, 128, (rows, k), device=device, generator=gen)
    is_flat = torch.arange(rows, device=device) % 4 != 3
    codes[is_flat] = flat[is_flat]
    return codes.to(torch.int8)


def make_inputs(m, n, k, seed=0, device="cpu"):
    gen = torch.Generator(device=device).manual_seed(seed)
    a, b = _codes(m, k, gen, device), _codes(n, k, gen, device)
    return (a, b, _scales(m, gen, device), _scales(n, gen, device))


def work(m, n, k):
    """Integer operations from the shape alone: a multiply and an add for each of the m * n * k terms."""
    return 2 * m * n * k


def _zero_scales(seed):
    a, b, a_scales, b_scales = make_inputs(6, 10, 40, seed=seed)
    a_scales[2] = 0.0  # a padding token
    b_scales[7] = 0.0  # a pruned output channel
    return (a, b, a_scales, b_scales)


def cases():
    shaped = [{"name": f"a {m} x {k}, b {n} x {k} (seed {10 + i})", "args": make_inputs(m, n, k, seed=10 + i)}
              for i, (m, n, k) in enumerate(CORRECTNESS_SHAPES)]
    shaped[-1]["name"] += ": the flat rows' sums pass 2**24"
    return shaped + [
        {"name": "a 130 x 40, b 130 x 40: partial tiles in both dimensions", "args": make_inputs(130, 130, 40, seed=20)},
        {"name": "a 6 x 40, b 10 x 40: a zero activation scale (row 2), a zero weight scale (column 7)",
         "args": _zero_scales(22)},
    ]


def fresh(seed):
    """M, N 1-130, K 1-512 (edges of no tile size), codes over the whole int8 range, new at every grading."""
    rng = random.Random(seed)
    m, n, k = (rng.choice([1, rng.randint(1, hi)]) for hi in (130, 130, 512))
    return {"args": make_inputs(m, n, k, seed=seed % 2 ** 32)}
