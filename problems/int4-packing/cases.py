import random

import torch

I8 = torch.int8


def _pack(values):
    # Trusted packing for the unpack half of a case: a plain loop over the bits.
    rows = values.reshape(-1, values.shape[-1]).tolist() if values.numel() or values.dim() else []
    m = (values.shape[-1] + 1) // 2
    out = []
    for row in rows:
        row = row + [0] * (2 * m - len(row))
        out.append([(row[2 * j] & 0xF) | ((row[2 * j + 1] & 0xF) << 4) for j in range(m)])
    return torch.tensor(out, dtype=torch.uint8).reshape(*values.shape[:-1], m)


def _pair(values, other):
    values, other = torch.tensor(values, dtype=I8), torch.tensor(other, dtype=I8)
    return (values, _pack(other), other.shape[-1])


def _random(seed, shape):
    g = torch.Generator().manual_seed(seed)
    values = torch.randint(-8, 8, shape, generator=g, dtype=I8)
    other = torch.randint(-8, 8, shape, generator=g, dtype=I8)
    return (values, _pack(other), shape[-1])


def _empty(shape):
    return (torch.zeros(shape, dtype=I8), torch.zeros(*shape[:-1], 0, dtype=torch.uint8), 0)


# Every (low, high) pair of int4 values once: 256 bytes, all of 0x00..0xFF.
ALL_PAIRS = [v for lo in range(-8, 8) for hi in range(-8, 8) for v in (lo, hi)]


def cases():
    return [
        {"name": "example: [1, -2, 7, -8] <-> bytes [0xE1, 0x87]", "args": _pair([1, -2, 7, -8], [1, -2, 7, -8])},
        {"name": "odd length 5 (last high nibble is padding)", "args": _pair([3, -1, 0, 5, -8], [-3, 4, -8, 7, -1])},
        {"name": "one element", "args": _pair([-5], [6])},
        {"name": "empty (n = 0)", "args": _empty((0,))},
        {"name": "extremes: all -8, all 7, all -1", "args": _pair([-8] * 4 + [7] * 4 + [-1] * 4, [-1] * 4 + [-8] * 4 + [7] * 4)},
        {"name": "all 256 (low, high) pairs", "args": _pair(ALL_PAIRS, ALL_PAIRS[::-1])},
        {"name": "2-D [4, 7]: each row padded on its own", "args": _random(1, (4, 7))},
        {"name": "2-D [3, 0]: rows with no elements", "args": _empty((3, 0))},
        {"name": "3-D [2, 3, 64]", "args": _random(2, (2, 3, 64))},
        {"name": "weight matrix [128, 257]", "args": _random(3, (128, 257))},
    ]


def fresh(seed):
    """Random int4 values of a random shape (odd, even, 1 or 0 long rows; leading dims, possibly 0), and an
    independent packed buffer, often of another shape."""
    rng = random.Random(seed)
    g = torch.Generator().manual_seed(rng.randrange(2**62))

    def shape():
        lead = [rng.choice([0, 1, 2, 3]) if rng.random() < 0.1 else rng.randint(1, 8)
                for _ in range(rng.choice([0, 0, 1, 1, 2, 3]))]
        return (*lead, rng.choice([0, 1, 2, rng.randint(1, 40), rng.randint(1, 300)]))

    values = torch.randint(-8, 8, shape(), generator=g, dtype=I8)
    other = torch.randint(-8, 8, values.shape if rng.random() < 0.5 else shape(), generator=g, dtype=I8)
    packed = _pack(other) if other.shape[-1] else torch.zeros(*other.shape[:-1], 0, dtype=torch.uint8)
    return {"args": (values, packed, other.shape[-1])}
