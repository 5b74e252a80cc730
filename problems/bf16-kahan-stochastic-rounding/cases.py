import random

import torch

BF16 = torch.bfloat16


def _bits(seed, steps, n):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 2**16, (steps, n), generator=g, dtype=torch.int32)


def _training(seed, steps, n, lr=1e-4, scale=1.0):
    """Weights ~ N(0, scale) in bf16, and SGD-like updates -lr * g with g ~ N(0.5, 1) (a steady drift)."""
    g = torch.Generator().manual_seed(seed)
    weight = (torch.randn(n, generator=g) * scale).to(BF16)
    updates = -lr * (torch.randn(steps, n, generator=g) + 0.5)
    return weight, updates


def _small():
    # 1.0 (bf16 step 2**-7 above it), -2.0 (step 2**-6), 0.01: six steps of +0.001.
    return torch.tensor([1.0, -2.0, 0.01], dtype=BF16), torch.full((6, 3), 0.001)


def _ties():
    # Updates of exactly half a step: 1.0 + 2**-8 ties and stays at the even 1.0; 1.0078125 (odd
    # last bit) + 2**-8 ties and goes up to the even 1.015625.
    return torch.tensor([1.0, 1.0078125], dtype=BF16), torch.full((3, 2), 2.0**-8)


def _crossing():
    # Small weights under large updates of both signs: the weight crosses zero, and the difference
    # between the old and the new weight is not a bf16 number.
    g = torch.Generator().manual_seed(9)
    weight = (torch.randn(16, generator=g) * 1e-3).to(BF16)
    updates = torch.randn(40, 16, generator=g) * 0.3
    return weight, updates


def cases():
    w, u = _small()
    tw, tu = _training(4, 300, 48)
    nw, nu = _training(6, 200, 32, lr=3e-4, scale=4.0)
    cw, cu = _crossing()
    return [
        {"name": "example, nearest: updates below half a step are lost", "args": (w, u, "nearest")},
        {"name": "example, kahan: the buffer carries what the weight could not take", "args": (w, u, "kahan")},
        {"name": "example, stochastic", "args": (w, u, "stochastic", _bits(1, 6, 3))},
        {"name": "nearest: exact half steps round to even", "args": (*_ties(), "nearest")},
        {"name": "300 SGD steps of lr 1e-4, kahan", "args": (tw, tu, "kahan")},
        {"name": "300 SGD steps of lr 1e-4, stochastic", "args": (tw, tu, "stochastic", _bits(5, 300, 48))},
        {"name": "300 SGD steps of lr 1e-4, nearest (stalls)", "args": (tw, tu, "nearest")},
        {"name": "kahan: weights crossing zero under large updates", "args": (cw, cu, "kahan")},
        {"name": "stochastic: negative weights, 200 steps", "args": (nw, nu, "stochastic", _bits(7, 200, 32))},
        {"name": "stochastic: random bits all 0 (always down in magnitude) and all 65535",
         "args": (torch.tensor([1.0, -1.0, 3.0, -3.0], dtype=BF16), torch.full((4, 4), 0.003), "stochastic",
                  torch.tensor([[0, 0, 65535, 65535]] * 4, dtype=torch.int32))},
    ]


def fresh(seed):
    """A random method, size (1 to 64 weights, 1 to 200 steps), weight magnitude (1e-3 to 30) and kind of
    updates (a small steady drift, large ones of both signs that cross zero, or multiples of 2**-12 that
    land on exact ties), with random bits, now and then all 0 or all 65535 in some steps."""
    rng = random.Random(seed)
    g = torch.Generator().manual_seed(rng.getrandbits(62))
    method = rng.choice(["nearest", "kahan", "stochastic"])
    n, steps = rng.choice([1, rng.randint(1, 8), rng.randint(1, 64)]), rng.choice([1, rng.randint(1, 20), rng.randint(1, 200)])
    scale = 10.0 ** rng.uniform(-3, 1.5)
    weight = (torch.randn(n, generator=g) * scale).to(BF16)
    kind = rng.choice(["drift", "drift", "crossing", "ties"])
    if kind == "drift":
        updates = -(10.0 ** rng.uniform(-5, -1)) * scale * (torch.randn(steps, n, generator=g) + rng.uniform(-1, 1))
    elif kind == "crossing":
        updates = torch.randn(steps, n, generator=g) * scale * rng.uniform(0.1, 3)
    else:  # multiples of 2**-12 on weights near 1: sums that sit exactly half-way between bf16 values
        weight = (weight.float() / scale + rng.choice([-1, 1]) * rng.uniform(0.5, 4)).to(BF16)
        updates = torch.randint(-64, 65, (steps, n), generator=g).float() * 2.0 ** -12
    args = (weight, updates, method)
    if method == "stochastic":
        bits = _bits(rng.getrandbits(62), steps, n)
        for t in range(steps):
            if rng.random() < 0.1:
                bits[t] = rng.choice([0, 2 ** 16 - 1])
        args += (bits,)
    return {"args": args}
