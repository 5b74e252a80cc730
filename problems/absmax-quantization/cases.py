import random

import torch

F64 = torch.float64


def _lab(values, bits):
    return (torch.tensor(values, dtype=F64), bits)


def _weights(seed, shape, bits, outlier=None, dtype=F64):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g, dtype=F64) * 0.02
    if outlier is not None:
        x.view(-1)[int(torch.randint(x.numel(), (), generator=g))] = outlier
    return (x.to(dtype), bits)


REGULAR = [0.1, -0.2, 0.5, 1.0]


def cases():
    return [
        {"name": "lab: regular weights, 4-bit", "args": _lab(REGULAR, 4)},
        {"name": "lab: one outlier (12.0), 4-bit", "args": _lab(REGULAR + [12.0], 4)},
        {"name": "lab: the same outlier, 8-bit", "args": _lab(REGULAR + [12.0], 8)},
        {"name": "all zeros (scale 1.0)", "args": _lab([0.0, 0.0, 0.0], 4)},
        {"name": "negative values only", "args": _lab([-0.3, -1.1, -0.05, -2.4], 4)},
        {"name": "single element", "args": _lab([-3.5], 8)},
        {"name": "exact halves round to even", "args": _lab([0.5, 1.5, 2.5, -2.5, -0.5, 7.0], 4)},
        {"name": "2-bit (ternary: -1, 0, 1)", "args": _lab([0.2, -0.9, 0.6, 0.3, -0.5], 2)},
        {"name": "weight matrix [64, 128], 8-bit", "args": _weights(1, (64, 128), 8)},
        {"name": "weight matrix with a negative outlier, 4-bit", "args": _weights(2, (32, 64), 4, outlier=-0.5)},
        {"name": "float32 weights [16, 16], 8-bit", "args": _weights(3, (16, 16), 8, dtype=torch.float32)},
    ]


def _shape(rng, most):
    """A random shape of 0 to 3 dimensions (0-d now and then) with at most `most` elements."""
    shape = []
    for _ in range(rng.choice([0, 1, 1, 1, 2, 2, 3])):
        shape.append(rng.randint(1, max(1, min(64, most // max(1, torch.Size(shape).numel())))))
    return tuple(shape)


def _off_the_halves(x, bits, margin):
    """x with every code x / scale kept `margin` away from a half (a tie another order of the same
    arithmetic could round the other way): such values move toward 0 by 2 * margin codes. The value of
    largest magnitude, a whole code, is not moved, so the scale stays."""
    qmax = 2 ** (bits - 1) - 1
    absmax = x.abs().max()
    if absmax == 0:
        return x
    scale = absmax / qmax
    v = (x / scale).double()
    near = ((v.abs() % 1) - 0.5).abs() < margin
    return torch.where(near, x - x.sign() * (2 * margin) * scale, x)


def fresh(seed):
    """A tensor of random shape, dtype (float64 or float32), width (2 to 16 bits), magnitude and kind
    (Gaussian weights, an outlier of either sign, negative only, a single element, all zeros, or
    exact halves on a power-of-two scale)."""
    rng = random.Random(seed)
    g = torch.Generator().manual_seed(rng.getrandbits(63))
    dtype = rng.choice([F64, F64, F64, torch.float32])
    bits = rng.choice([2, 3, 4, 4, 5, 6, 7, 8, 8, 8, 10, 12, 16, rng.randint(2, 16)])
    kind = rng.choice(["gauss", "gauss", "outlier", "outlier", "negative", "single", "zeros", "halves"])
    shape = (1,) * rng.randint(0, 2) if kind == "single" else _shape(rng, 4096)
    magnitude = 10.0 ** rng.uniform(-6, 3)
    if kind == "zeros":
        return {"args": (torch.zeros(shape, dtype=dtype), bits)}
    if kind == "halves":
        # A power-of-two scale: every code x / scale is exact, and the halves are true ties (to even).
        qmax = 2 ** (bits - 1) - 1
        scale = 2.0 ** rng.randint(-20, 10)
        codes = torch.randint(-2 * qmax, 2 * qmax + 1, shape, generator=g, dtype=F64) / 2
        codes.view(-1)[int(torch.randint(codes.numel(), (), generator=g))] = rng.choice([qmax, -qmax])
        return {"args": ((codes * scale).to(dtype), bits)}
    x = torch.randn(shape, generator=g, dtype=F64) * magnitude
    if kind == "outlier":
        x.view(-1)[int(torch.randint(x.numel(), (), generator=g))] = rng.choice([-1, 1]) * magnitude * rng.uniform(5, 1000)
    elif kind == "negative":
        x = -x.abs()
    x = x.to(dtype)
    return {"args": (_off_the_halves(x, bits, 1e-4 if dtype == F64 else 0.02), bits)}
