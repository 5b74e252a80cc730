"""Streams of tensors for fp8-delayed-scaling: one tensor per training step, with the magnitudes a
real run shows (growing gradients, a spike, an all-zero step, an overflow) so that the delayed scale
visibly lags, saturates and recovers."""
import torch


def _stream(seed, magnitudes, n=64):
    """One tensor of n values per step, step t drawn with standard deviation magnitudes[t]."""
    g = torch.Generator().manual_seed(seed)
    return torch.stack([torch.randn(n, generator=g) * magnitude for magnitude in magnitudes])


def _with(xs, step, index, value):
    xs = xs.clone()
    xs[step, index] = value
    return xs


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
        {"name": "24 steps of e4m3 activations, history 8, most_recent, margin 1",
         "args": (_stream(10, [2.0 + (t % 5) for t in range(24)], 256), "e4m3", 8, 1, "most_recent")},
    ]
