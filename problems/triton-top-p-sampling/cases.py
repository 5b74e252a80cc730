"""Inputs for triton-top-p-sampling: hand-built rows for the edges (ties at the cut, top_p = 1, a top_p below
every probability, u = 0, masked tokens), and random rows whose top_p and u are settled away from every
decision boundary, so that any order of fp32 summation (the kernel's, the reference's) draws the same token.

Trusted code: the grader calls it for the correctness cases, and the benchmark calls `make_inputs`
with a fresh seed for every timed repetition.
"""

import math
import random

import torch

INF = float("inf")
BIG = 1e-3  # random rows: the cut and the draw fall in tokens of at least this probability, half of it away


def _settle(logits, temperature, top_p, gen):
    """top_p moved to the middle of the cut token's probability (rows of top_p = 1 kept), and a u in the middle
    of a kept token's interval of the CDF: the drawn token if its probability is at least BIG, else the most
    probable one. Decided in float64, so that the margins hold for any fp32 computation."""
    probs = torch.softmax(logits / temperature[:, None], dim=-1, dtype=torch.float64)
    ranked, order = torch.sort(probs, dim=-1, descending=True, stable=True)
    above = torch.cumsum(ranked, dim=-1) - ranked
    big = (ranked >= BIG).sum(dim=-1).clamp(min=1)
    rand = torch.rand(logits.shape[0], generator=gen, device=logits.device, dtype=torch.float64)
    cut = (rand * big).long().clamp(max=big - 1)[:, None]
    middle = (above.gather(-1, cut) + ranked.gather(-1, cut) / 2).squeeze(-1)
    top_p = torch.where(top_p >= 1.0, top_p, middle.float())
    kept_ranked = (above < top_p[:, None].double()) & (ranked > 0)
    kept = torch.zeros_like(kept_ranked).scatter(-1, order, kept_ranked)
    weights = torch.where(kept, probs, 0.0)
    cdf = torch.cumsum(weights, dim=-1)
    total = cdf[:, -1:]
    drawn = (cdf <= torch.rand(logits.shape[0], 1, generator=gen, device=logits.device, dtype=torch.float64)
             * total).sum(dim=-1, keepdim=True)
    drawn = torch.where(weights.gather(-1, drawn) >= BIG * total, drawn, order[:, :1])
    uniforms = (cdf.gather(-1, drawn) - weights.gather(-1, drawn) / 2) / total
    return top_p, uniforms.squeeze(-1).float()


def make_inputs(batch, vocab, seed=0, device="cpu"):
    """Peaked random logits (about 5% masked to -inf, never a row's largest), temperatures 0.5-1.5, top_p of
    1.0 on a quarter of the rows and settled cuts elsewhere, settled uniforms. Where the batch has room for
    them and one random row more, its first rows are the edges (EDGES, their tokens past 5 masked): the
    benchmark's correctness gate sees the ties and the cut at equal mass that settled rows never reach."""
    gen = torch.Generator(device=device).manual_seed(seed)
    logits = torch.randn(batch, vocab, device=device, generator=gen) * 3
    masked = torch.rand(batch, vocab, device=device, generator=gen) < 0.05
    masked.scatter_(-1, logits.argmax(dim=-1, keepdim=True), False)
    logits = logits.masked_fill(masked, -INF)
    temperature = 0.5 + torch.rand(batch, device=device, generator=gen)
    top_p = torch.where(torch.rand(batch, device=device, generator=gen) < 0.25, 1.0, 0.9)
    top_p, uniforms = _settle(logits, temperature, top_p, gen)
    edges = len(EDGES[0])
    if batch > edges and vocab >= EDGES[0].shape[1]:
        logits[:edges] = -INF
        logits[:edges, :EDGES[0].shape[1]] = EDGES[0].to(device)
        for planted, edge in zip((temperature, top_p, uniforms), EDGES[1:], strict=True):
            planted[:edges] = edge.to(device)
    return (logits, temperature, top_p, uniforms)


def work(batch, vocab):
    """Bytes from the shape alone: the fp32 logits read once (the per-row scalars and ids are noise)."""
    return 4 * batch * vocab


def _log(probabilities):
    return [math.log(p) if p > 0 else -INF for p in probabilities]


def _rows(rows):
    """rows: (probabilities or logits, temperature, top_p, u) -> the four [B] / [B, V] fp32 tensors."""
    return (torch.tensor([r[0] for r in rows], dtype=torch.float32), torch.tensor([r[1] for r in rows]),
            torch.tensor([r[2] for r in rows]), torch.tensor([r[3] for r in rows]))


# Each row: its probabilities (as logits: their logs), its temperature, top_p, u, and what the rule draws.
EDGES = _rows([
    # Ties at the cut: 0.4 then 0.3, 0.3 (ids 1 and 2). Above id 1: 0.4 < 0.65, kept; above id 2: 0.7, cut.
    # Kept mass 0.7, u * 0.7 = 0.63: the CDF (id order) is 0.4, 0.7: draws id 1 (lower id first in a tie).
    (_log([0.4, 0.3, 0.3, 0.0, 0.0]), 1.0, 0.65, 0.9),
    # top_p = 1: every token of positive probability is kept; u near the end draws the last one (id 3).
    (_log([0.1, 0.2, 0.3, 0.4, 0.0]), 1.0, 1.0, 0.95),
    # A top_p below every probability: only the most probable token (id 2), whatever u.
    (_log([0.3, 0.2, 0.35, 0.15, 0.0]), 1.0, 1e-6, 0.999),
    # u = 0: the first kept token in id order with positive probability: id 1 (id 0 is masked, -inf).
    (_log([0.0, 0.25, 0.25, 0.5, 0.0]), 1.0, 0.8, 0.0),
    # top_p exactly the mass above a token: four equal logits and a masked one give 1/4 each, exactly in any
    # order of summation. Ranked by id, the masses above are 0, 1/4, 1/2, 3/4: id 2's is 1/2 = top_p, not below
    # it, so ids 0 and 1 are kept (mass 1/2); u * 1/2 = 0.35 draws id 1.
    ([1.0, 1.0, 1.0, 1.0, -INF], 1.0, 0.5, 0.7),
    # Temperature 0.5 squares the odds: 0.2 : 0.8 becomes 1/17 : 16/17. The mass above id 0 is 16/17 > 0.9: only
    # id 1 is kept, whatever u (at temperature 1 both would be, and u = 0.1 would draw id 0).
    (_log([0.2, 0.8, 0.0, 0.0, 0.0]), 0.5, 0.9, 0.1),
])


def cases():
    return [
        {"name": "edges: a tie at the cut (lower id first), top_p = 1, top_p below every probability, u = 0, "
                 "top_p equal to the mass above, temperature 0.5", "args": EDGES},
        {"name": "2 rows of 1000 logits (not a power of two), masked tokens (seed 11)", "args": make_inputs(2, 1000, 11)},
        {"name": "one row of 1 token", "args": _rows([([2.5], 0.7, 0.3, 0.6)])},
    ]


def fresh(seed):
    """1-2 random rows of 1-2000 logits (settled top_p and u), new at every grading."""
    rng = random.Random(seed)
    return {"args": make_inputs(rng.randint(1, 2), rng.choice([1, 2, rng.randint(1, 100), rng.randint(1, 2000)]),
                                seed=seed % 2 ** 32)}
