import random

import torch

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16


def _t(values, dtype=F32):
    return (torch.tensor(values, dtype=dtype),)


def _random(seed, shape, mean=0.0, std=1.0, dtype=F32):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g, dtype=torch.float64) * std + mean
    return (x.to(dtype),)


# scale = 1/128 exactly (lo = -1, hi = 255/128 - 1), zero point 128: x / scale are exact halves.
TIES = [-1.0, 0.0, 0.5 / 128, 1.5 / 128, 2.5 / 128, -2.5 / 128, -0.5 / 128, 100.5 / 128, 0.9921875]


def cases():
    return [
        {"name": "example: scale 1/128, zero point 128", "args": _t([-1.0, 0.0, 2.5 / 128, 0.9921875])},
        {"name": "exact halves round to even", "args": _t(TIES)},
        # scale 1, zero point 154 (round(153.5) is 154): 101.5 rounds to 102, and 102 + 154 = 256 > 255.
        {"name": "the top of the range rounds past 255 (lo -153.5, hi 101.5): the clamp decides",
         "args": _t([-153.5, 0.0, 101.5, 50.25])},
        {"name": "all zeros (scale 1.0, zero point 0)", "args": (torch.zeros(3, 4),)},
        {"name": "constant 2.5 (range [0, 2.5])", "args": (torch.full((5,), 2.5),)},
        {"name": "all negative (zero point 255)", "args": _t([-2.0, -0.5, -1.25, -0.25])},
        {"name": "all positive activations [0.5, 3) (zero point 0)", "args": (torch.rand(6, 7, generator=torch.Generator().manual_seed(1)) * 2.5 + 0.5,)},
        {"name": "tiny range (std 1e-6)", "args": _random(2, (8, 16), std=1e-6)},
        {"name": "skewed range [-0.3, 5] (post-GELU activations)", "args": (torch.nn.functional.gelu(_random(3, (32, 64), std=2.0)[0]),)},
        {"name": "single element", "args": _t([-0.75])},
        {"name": "float16 input [64, 64]", "args": _random(4, (64, 64), mean=0.5, std=1.5, dtype=torch.float16)},
        {"name": "bfloat16 input [16, 48] with an outlier", "args": (torch.cat([_random(5, (16, 47), std=0.1)[0], torch.full((16, 1), 6.0)], 1).to(torch.bfloat16),)},
    ]


def _clear_of_ties(x):
    # Every x / scale (and lo / scale, the zero point's) at least 1e-3 of a step from a half: a solution that
    # computes them in another order (x * (1 / scale), 255 * x / (hi - lo)) moves them by a few float32 ulps.
    xf = x.to(F32)
    lo, hi = torch.clamp(xf.min(), max=0.0), torch.clamp(xf.max(), min=0.0)
    if hi == lo:
        return True
    v = torch.cat([xf.reshape(-1), lo.reshape(1)]) / ((hi - lo) / 255)
    return bool(((v - v.floor() - 0.5).abs() >= 1e-3).all())


def fresh(seed):
    """A random tensor (1-3 dims, 1-600 elements) in a random dtype: mixed signs at a random scale (1e-6 to 100),
    all positive, all negative, post-GELU, a constant, zeros or with an outlier, clear of rounding ties, new at
    every grading."""
    rng = random.Random(seed)
    dtype = rng.choice([F32, F16, BF16])
    shape = tuple(rng.randint(1, 12) for _ in range(rng.randint(1, 3)))
    kind = rng.choice(["mixed", "mixed", "positive", "negative", "gelu", "constant", "zeros", "outlier"])
    while True:
        g = torch.Generator().manual_seed(rng.randrange(2 ** 32))
        std = 10 ** rng.uniform(-3 if dtype == F16 else -6, 2)  # float16 has no normal numbers below 6e-5
        x = torch.randn(*shape, generator=g, dtype=torch.float64) * std
        if kind == "mixed":
            x = x + std * rng.uniform(-2, 2)
        elif kind in ("positive", "negative"):
            x = (torch.rand(*shape, generator=g, dtype=torch.float64) * rng.uniform(0.1, 1) + rng.uniform(0, 1)) * std
            x = x if kind == "positive" else -x
        elif kind == "gelu":
            x = torch.nn.functional.gelu(x)
        elif kind == "constant":
            x = torch.full(shape, rng.choice([-1, 1]) * std, dtype=torch.float64)
        elif kind == "zeros":
            x = torch.zeros(shape, dtype=torch.float64)
        else:
            x.view(-1)[rng.randrange(x.numel())] = std * rng.uniform(10, 60) * rng.choice([-1, 1])
        x = x.to(dtype)
        if _clear_of_ties(x):
            return {"args": (x,)}
