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
