"""Steps of the online softmax, block by block: each case is the state after the first k blocks of a row
set (computed here densely, from the columns seen so far, independently of any step function) and the
next block. The step's answer is the state after k + 1 blocks."""

import math

import torch

NEG_INF = float("-inf")
F64 = torch.float64


def state(logits, values):
    """The dense truth over the columns seen so far: m = row max (-inf before any valid logit),
    l = sum exp(z - m), o = sum exp(z - m) * v (both 0 before any valid logit)."""
    rows = logits.shape[0]
    m = logits.amax(dim=1) if logits.shape[1] else torch.full((rows,), NEG_INF, dtype=logits.dtype)
    seen = torch.isfinite(m)
    weights = torch.where(seen[:, None], torch.exp(logits - torch.where(seen, m, 0.0)[:, None]), 0.0)
    return m, weights.sum(dim=1), weights @ values


def step_case(name, logits, values, block_size, k):
    """The k-th block (0-based) of `logits` (blocks of `block_size` columns), after the state of blocks 0..k-1."""
    start, end = k * block_size, min((k + 1) * block_size, logits.shape[1])
    m, l, o = state(logits[:, :start], values[:start])
    block = (logits[:, start:end].clone(), values[start:end].clone())
    return {"name": f"{name}: block {k + 1} of {math.ceil(logits.shape[1] / block_size)}",
            "args": (m.clone(), l.clone(), o.clone(), *block)}


def _lab_row(shift):
    # The lab's blocks [(log 2, 10), (0, 20)], [], [(log 4, 30)] with blocks of 2: the empty
    # block is two masked columns (their values, 99, must not count). Answer: 160/7.
    return [math.log(2) + shift, shift, NEG_INF, NEG_INF, math.log(4) + shift]


LAB_VALUES = torch.tensor([[10.0], [20.0], [99.0], [99.0], [30.0]], dtype=F64)


def _lab(shift):
    return torch.tensor([_lab_row(shift)], dtype=F64), LAB_VALUES.clone()


def _mixed_rows():
    # Row 0: the lab's row; row 1: fully masked (the lab's None); row 2: only the last column valid,
    # so its first two blocks are empty.
    logits = torch.tensor([_lab_row(0.0), [NEG_INF] * 5, [NEG_INF, NEG_INF, NEG_INF, NEG_INF, 0.5]], dtype=F64)
    return logits, LAB_VALUES.clone()


def _random(seed, rows, n, d, shift=0.0, mask_rate=0.3, masked_rows=(), masked_prefix=0):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(rows, n, generator=g) * 3 + shift
    logits[torch.rand(rows, n, generator=g) < mask_rate] = NEG_INF
    for r in masked_rows:
        logits[r] = NEG_INF
    # Leading fully masked blocks: the running max is still -inf when they are visited.
    logits[:, :masked_prefix] = NEG_INF
    return logits, torch.randn(n, d, generator=g)


def _causal(seed, n, d):
    # Row i sees columns 0..i (a causal attention mask).
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(n, n, generator=g) * 2
    logits = logits.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), NEG_INF)
    return logits, torch.randn(n, d, generator=g)


def _rising(n, d, block_size):
    # Logits that grow along the row: every block raises every row's max, so every step rescales.
    g = torch.Generator().manual_seed(11)
    logits = torch.arange(n, dtype=torch.float32).repeat(3, 1) * torch.tensor([[0.5], [1.0], [2.0]])
    return logits + torch.randn(3, n, generator=g) * 0.1, torch.randn(n, d, generator=g)


def cases():
    lab, lab_up, mixed = _lab(0.0), _lab(1000.0), _mixed_rows()
    masked_first = _random(1, 4, 40, 3, masked_prefix=16)
    wide = _random(4, 8, 300, 16, masked_rows=(5,))
    causal = _causal(5, 64, 8)
    up, down = _random(6, 4, 257, 4, shift=1000.0), _random(7, 4, 257, 4, shift=-1000.0)
    return [
        step_case("lab row (160/7 at the end), from the empty state", *lab, 2, 0),
        step_case("lab row: a fully masked block changes nothing", *lab, 2, 1),
        step_case("lab row: the last block raises the max (rescale by 1/2)", *lab, 2, 2),
        step_case("lab row shifted by +1000, from the empty state", *lab_up, 2, 0),
        step_case("lab row shifted by +1000: the last block", *lab_up, 2, 2),
        step_case("a masked row and a row whose first blocks are masked, from the empty state", *mixed, 2, 0),
        step_case("a masked row and a row still empty: a second masked block", *mixed, 2, 1),
        step_case("a row's first valid logit arrives while another stays masked", *mixed, 2, 2),
        step_case("4 rows whose first two blocks of 8 are masked: a masked block on the empty state", *masked_first, 8,
                  1),
        step_case("4 rows: the first valid block after two masked ones", *masked_first, 8, 2),
        step_case("4 rows: a later block", *masked_first, 8, 4),
        step_case("block_size 1", *_random(2, 3, 9, 2), 1, 4),
        step_case("one block holding every column", *_random(3, 3, 9, 2), 64, 0),
        step_case("300 columns in blocks of 32, a masked row: a middle block", *wide, 32, 4),
        step_case("300 columns in blocks of 32: the last block, of 12 columns", *wide, 32, 9),
        step_case("causal mask [64, 64], blocks of 16", *causal, 16, 2),
        step_case("logits rising along the rows: every block raises every max", *_rising(40, 3, 8), 8, 3),
        step_case("logits shifted by +1000 (exp overflows without the max)", *up, 64, 2),
        step_case("logits shifted by -1000, from the empty state (exp underflows to 0 without the max)", *down, 64, 0),
        step_case("logits shifted by -1000", *down, 64, 3),
    ]


def fresh(seed):
    """One random step, new at every grading (never shown): 1 to 8 rows, up to 300 columns in blocks of 1 to 64
    (any block, the shorter last one too), D from 1 to 16, float32 or float64, logits shifted by 0 or +-1000,
    masked entries, fully masked rows, leading masked blocks, or a causal mask."""
    g = torch.Generator().manual_seed(seed)

    def draw(*choices):
        return choices[int(torch.randint(len(choices), (), generator=g))]

    def below(n):
        return int(torch.randint(n, (), generator=g))

    rows, n, d = draw(1, 1 + below(8)), draw(1 + below(16), 1 + below(300)), draw(1, 1 + below(16))
    block_size = draw(1, 1 + below(16), 1 + below(64), n)
    if draw(*[False] * 4, True):
        logits, values = _causal(below(2 ** 31), n, d)
    else:
        masked_rows = tuple(r for r in range(rows) if below(6) == 0)
        logits, values = _random(below(2 ** 31), rows, n, d, shift=draw(0.0, 0.0, 1000.0, -1000.0),
                                 mask_rate=draw(0.0, 0.3, 0.9), masked_rows=masked_rows,
                                 masked_prefix=draw(0, 0, below(n)))
    dtype = draw(torch.float32, F64)
    k = below(-(-n // block_size))
    case = step_case("fresh", logits.to(dtype), values.to(dtype), block_size, k)
    return {"args": case["args"]}
