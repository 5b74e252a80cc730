import math

import torch

NEG_INF = float("-inf")
F64 = torch.float64


def _lab_row(shift):
    # The lab's blocks [(log 2, 10), (0, 20)], [], [(log 4, 30)] with blocks of 2: the empty
    # block is two masked columns (their values, 99, must not count). Answer: 160/7.
    return [math.log(2) + shift, shift, NEG_INF, NEG_INF, math.log(4) + shift]


LAB_VALUES = torch.tensor([[10.0], [20.0], [99.0], [99.0], [30.0]], dtype=F64)


def _lab(shift):
    return (torch.tensor([_lab_row(shift)], dtype=F64), LAB_VALUES.clone(), 2)


def _random(seed, rows, n, d, block_size, shift=0.0, mask_rate=0.3, masked_rows=(), masked_prefix=0):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(rows, n, generator=g) * 3 + shift
    logits[torch.rand(rows, n, generator=g) < mask_rate] = NEG_INF
    for r in masked_rows:
        logits[r] = NEG_INF
    # Leading fully masked blocks: the running max is still -inf when they are visited.
    logits[:, :masked_prefix] = NEG_INF
    values = torch.randn(n, d, generator=g)
    return (logits, values, block_size)


def _causal(seed, n, d, block_size):
    # Row i sees columns 0..i (a causal attention mask).
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(n, n, generator=g) * 2
    logits = logits.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), NEG_INF)
    return (logits, torch.randn(n, d, generator=g), block_size)


def _mixed_rows():
    # Row 0: the lab's row; row 1: fully masked (the lab's None) -> zeros; row 2: only the last
    # column valid, so the first two blocks are empty.
    logits = torch.tensor([
        _lab_row(0.0),
        [NEG_INF] * 5,
        [NEG_INF, NEG_INF, NEG_INF, NEG_INF, 0.5],
    ], dtype=F64)
    return (logits, LAB_VALUES.clone(), 2)


def cases():
    return [
        {"name": "lab: blocks [(log 2, 10), (0, 20)], [], [(log 4, 30)] -> 160/7", "args": _lab(0.0)},
        {"name": "lab: the same logits shifted by +1000", "args": _lab(1000.0)},
        {"name": "fully masked row gives zeros; empty leading blocks", "args": _mixed_rows()},
        {"name": "first blocks fully masked in every row", "args": _random(1, 4, 40, 3, 8, masked_prefix=16)},
        {"name": "block_size 1", "args": _random(2, 3, 9, 2, 1)},
        {"name": "block_size >= N (one block)", "args": _random(3, 3, 9, 2, 64)},
        {"name": "block_size not dividing N (300 = 9 * 32 + 12)", "args": _random(4, 8, 300, 16, 32, masked_rows=(5,))},
        {"name": "causal mask [64, 64], blocks of 16", "args": _causal(5, 64, 8, 16)},
        {"name": "all logits shifted by +1000", "args": _random(6, 4, 257, 4, 64, shift=1000.0)},
        {"name": "all logits shifted by -1000", "args": _random(7, 4, 257, 4, 64, shift=-1000.0)},
    ]
