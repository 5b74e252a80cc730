"""Streams of tensors for fp8-delayed-scaling: one tensor per training step, with the magnitudes a
real run shows (growing gradients, a spike, an all-zero step, an overflow) so that the delayed scale
visibly lags, saturates and recovers."""
import random

import torch


def _stream(seed, magnitudes, n=64):
    """One tensor of n values per step, step t drawn with standard deviation magnitudes[t]."""
    g = torch.Generator().manual_seed(seed)
    return torch.stack([torch.randn(n, generator=g) * magnitude for magnitude in magnitudes])


def _with(xs, step, index, value):
    xs = xs.clone()
    xs[step, index] = value
    return xs


def _on_the_max(fp8_max=448.0, above=450.0):
    """Step 0 at scale 1.0: +-fp8_max exactly (representable: not saturated). Its amax is fp8_max, so step 1's
    scale is exactly 1.0 again: +-fp8_max stay unsaturated and `above` saturates."""
    steps = torch.zeros(3, 4)
    steps[0, :3] = torch.tensor([fp8_max, -fp8_max, 3.0])
    steps[1] = torch.tensor([fp8_max, -above, -fp8_max, 1.0])
    steps[2, :2] = torch.tensor([1.0, 2.0])
    return steps


def cases():
    spike = [1.0, 1.2, 150.0, 1.1, 0.9, 1.0, 1.3, 1.0]
    growing = [0.5 * 1.35 ** t for t in range(20)]
    return [
        {"name": "example: e4m3, history 4, margin 0, a spike at step 2 that the window remembers",
         "args": (_stream(1, spike), "e4m3", 4, 0, "max")},
        {"name": "e5m2 gradients growing 35% a step, history 16, margin 1",
         "args": (_stream(2, growing, 128), "e5m2", 16, 1, "max")},
        {"name": "most_recent with history 3: the spike is forgotten at once",
         "args": (_stream(3, spike), "e4m3", 3, 0, "most_recent")},
        {"name": "the first step saturates: scale 1.0 and values near 1000 (above 448)",
         "args": (_stream(4, [400.0, 400.0, 380.0, 420.0]), "e4m3", 2, 0, "max")},
        {"name": "an all-zero step: amax 0 keeps the scale",
         "args": (_stream(5, [2.0, 0.0, 3.0, 0.0, 0.0, 2.5]), "e4m3", 1, 2, "most_recent")},
        {"name": "an inf at step 1 (an overflowing gradient): saturated, and the scale kept while it is in the window",
         "args": (_with(_stream(6, [1.0] * 7), 1, 5, float("inf")), "e5m2", 3, 0, "max")},
        {"name": "small activations (1e-3): the scale rises to about 2e4 (margin 3)",
         "args": (_stream(7, [1e-3, 1.2e-3, 0.9e-3, 1e-3, 1.1e-3]), "e4m3", 2, 3, "max")},
        {"name": "e5m2 at scale 1.0 with values near 1e5: clamp before the cast, or get inf",
         "args": (_stream(8, [6e4, 5e4, 7e4]), "e5m2", 2, 0, "most_recent")},
        {"name": "tiny negatives round to -0 (code 0x80), history 5, margin 2",
         "args": (_with(_stream(9, [1.0, 1.0, 1.0]), 2, 0, -1e-30), "e4m3", 5, 2, "max")},
        {"name": "e4m3: 448 and -448 exactly are representable (not saturated), 450 saturates",
         "args": (_on_the_max(), "e4m3", 1, 0, "most_recent")},
        {"name": "e5m2: 57344 and -57344 exactly are representable, 57345 saturates",
         "args": (_on_the_max(57344.0, 57345.0), "e5m2", 2, 0, "max")},
        {"name": "24 steps of e4m3 activations, history 8, most_recent, margin 1",
         "args": (_stream(10, [2.0 + (t % 5) for t in range(24)], 256), "e4m3", 8, 1, "most_recent")},
    ]


_FORMATS = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}


def _near_a_boundary(xs, fmt, history_len, margin, algo):
    """Whether some scaled value lies within 1e-6 (relative) of an fp8 rounding boundary or of the saturation
    threshold, where a scale one float32 step away could change a code or a count."""
    dtype = _FORMATS[fmt]
    fp8_max = torch.finfo(dtype).max
    scale, history = torch.tensor(1.0), torch.zeros(history_len)
    for x in xs:
        scaled = (x * scale)[torch.isfinite(x)]
        lo, hi = (torch.clamp(scaled * f, -fp8_max, fp8_max).to(dtype).view(torch.uint8) for f in (1 - 1e-6, 1 + 1e-6))
        if not torch.equal(lo, hi) or bool(((scaled.abs() / fp8_max - 1).abs() < 1e-6).any()):
            return True
        history = torch.cat([history[1:], x.abs().max().reshape(1)])
        amax = history.max() if algo == "max" else history[-1]
        if torch.isfinite(amax) and amax > 0:
            scale = fp8_max / amax / 2 ** margin
    return False


def fresh(seed):
    """A random stream: steps whose magnitudes drift (from 1e-4 to 1e5), spike or vanish (all-zero steps),
    sometimes an inf or tiny negatives, with a random format, history length, margin and algorithm."""
    rng = random.Random(seed)
    while True:
        T, n = rng.randint(1, 32), rng.choice([1, rng.randint(1, 16), rng.randint(1, 256)])
        level, magnitudes = rng.uniform(-3.0, 4.5), []
        for _ in range(T):
            level = min(5.0, max(-4.0, level + rng.gauss(0.0, rng.choice([0.05, 0.2, 0.5]))))
            magnitudes.append(0.0 if rng.random() < 0.05 else
                              10 ** (level + (rng.uniform(1.0, 2.5) if rng.random() < 0.08 else 0.0)))
        xs = _stream(rng.randrange(2**62), magnitudes, n)
        if rng.random() < 0.2:
            xs = _with(xs, rng.randrange(T), rng.randrange(n), rng.choice([float("inf"), float("-inf")]))
        if rng.random() < 0.2:
            xs = _with(xs, rng.randrange(T), rng.randrange(n), -rng.choice([1e-30, 1e-12]))
        args = (xs, rng.choice(["e4m3", "e5m2"]), rng.choice([1, rng.randint(1, 8), rng.randint(1, 40)]),
                rng.choice([0, 0, 1, 2, rng.randint(0, 6)]), rng.choice(["max", "most_recent"]))
        if not _near_a_boundary(*args):
            return {"args": args}
