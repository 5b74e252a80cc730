import math
import random

import torch

F64 = torch.float64


def _warp_row(logits, temperature, top_k, top_p):
    """The draft's own sampler, written out in plain Python (the cases' data, not the reference)."""
    z = [x / temperature for x in logits]
    order = sorted(range(len(z)), key=lambda t: (-z[t], t))
    top = max(z)
    weights = {t: math.exp(z[t] - top) for t in order[:top_k or len(z)]}
    total = sum(weights.values())
    kept, above = {}, 0.0
    for t in order[:top_k or len(z)]:
        if above >= top_p:
            break
        kept[t] = weights[t] / total
        above += weights[t] / total
    mass = sum(kept.values())
    return [kept.get(t, 0.0) / mass for t in range(len(z))]


def _draw_row(probs, u):
    cumulative = 0.0
    for t, p in enumerate(probs):
        cumulative += p
        if cumulative > u:
            return t
    return max(t for t, p in enumerate(probs) if p > 0)


def _case(name, seed, gamma, vocab, uniforms, spread=3.0, closeness=1.0, **warp):
    """Target logits at gamma + 1 positions; a draft model's at gamma (the target plus noise); the
    tokens the draft's sampler drew (same warping, its own seeded draws); the verifier's uniforms."""
    g = torch.Generator().manual_seed(seed)
    target = torch.randn(gamma + 1, vocab, generator=g, dtype=F64) * spread
    draft = target[:gamma] + torch.randn(gamma, vocab, generator=g, dtype=F64) * closeness
    settings = {"temperature": 1.0, "top_k": 0, "top_p": 1.0} | warp
    tokens = [_draw_row(_warp_row(draft[i].tolist(), **settings), float(torch.rand((), generator=g, dtype=F64)))
              for i in range(gamma)]
    args = (target, draft, torch.tensor(tokens, dtype=torch.long), torch.tensor(uniforms, dtype=F64))
    return {"name": name, "args": args, "kwargs": warp}


def _example():
    # Vocabulary of 4, two draft tokens. Position 0: p = q, token 2 accepted. Position 1: the draft
    # proposed token 0 with q = 0.5 where the target has p = 0.1, accepted only if u < 0.2; u = 0.7
    # rejects it, and the replacement is drawn from max(p - q, 0) = [0, 0.2, 0, 0.2], normalized.
    target = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.1, 0.3, 0.2, 0.4], [0.25, 0.25, 0.25, 0.25]], dtype=F64).log()
    draft = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.5, 0.1, 0.2, 0.2]], dtype=F64).log()
    return {"name": "example: vocabulary 4, the second draft token rejected",
            "args": (target, draft, torch.tensor([2, 0]), torch.tensor([0.5, 0.7, 0.6], dtype=F64))}


def _outside_top_k():
    # The draft's favourite at position 1 is token 5, which the target ranks 4th: with top_k 3 the
    # target gives it probability 0, and it is rejected whatever the uniform.
    target = torch.tensor([[3.0, 2.5, 0.0, 0.2, -1.0, 1.0],
                           [2.0, 3.0, 2.5, 0.0, -1.0, 1.0],
                           [0.5, 0.0, 1.0, 2.0, 0.3, 0.1]], dtype=F64)
    draft = torch.tensor([[3.1, 2.4, 0.0, 0.1, -1.0, 1.0],
                          [0.0, 1.0, 0.5, 0.0, -1.0, 3.0]], dtype=F64)
    return {"name": "top_k 3: a draft token outside the target's top 3 is always rejected",
            "args": (target, draft, torch.tensor([0, 5]), torch.tensor([0.05, 0.01, 0.4], dtype=F64)),
            "kwargs": {"top_k": 3}}


def _identical():
    # A draft that is the target itself: every ratio is 1, every token accepted, and a bonus token.
    g = torch.Generator().manual_seed(11)
    target = torch.randn(4, 10, generator=g, dtype=F64)
    return {"name": "a draft identical to the target: all 3 accepted, plus a bonus token from the last position",
            "args": (target, target[:3].clone(), torch.tensor([4, 1, 7]), torch.tensor([0.9, 0.95, 0.99, 0.42], dtype=F64))}


def cases():
    return [
        _example(),
        _identical(),
        _case("rejected at the first draft token (u = 0.999)", 12, 3, 12, [0.999, 0.5, 0.5, 0.3]),
        _case("temperature 0.7, top_p 0.8, vocabulary 20", 3, 3, 20, [0.3, 0.6, 0.2, 0.55],
              temperature=0.7, top_p=0.8),
        _outside_top_k(),
        _case("top_k 1: greedy verification", 5, 4, 16, [0.5, 0.5, 0.5, 0.5, 0.5], closeness=2.0, top_k=1),
        _case("temperature 1.5, top_k 10, top_p 0.9, vocabulary 50, 4 draft tokens", 6, 4, 50,
              [0.2, 0.4, 0.1, 0.3, 0.77], temperature=1.5, top_k=10, top_p=0.9),
        _case("no draft tokens: a plain sample from the target", 7, 0, 30, [0.35], temperature=0.9, top_p=0.7),
        _case("vocabulary 1000, 5 draft tokens, temperature 0.8, top_p 0.95", 8, 5, 1000,
              [0.1, 0.2, 0.3, 0.4, 0.5, 0.66], spread=2.0, closeness=0.5, temperature=0.8, top_p=0.95),
        _case("a draft far from the target: most proposals rejected", 9, 4, 8, [0.6, 0.6, 0.6, 0.6, 0.25],
              closeness=4.0, top_k=6),
    ]


TIE = 1e-5  # the least distance of every comparison from its tie in a fresh case (the statement's is 1e-6)
LOGIT_GAP = 1e-9  # and of two logits of a row: far above float64's rounding, so that every ranking agrees


def _clear_of_ties(target, draft, tokens, uniforms, temperature=1.0, top_k=0, top_p=1.0):
    """Whether every comparison of the sampler and the verifier (replayed as the statement defines them) is
    clear of its tie: two logits of a row (LOGIT_GAP), the mass above a token against top_p, a ratio against
    its uniform, a cumulative probability against the draw's uniform (TIE); not where a draft token has q = 0."""
    gaps, logit_gaps = [1.0], [1.0]

    def warp(row):
        z = [v / temperature for v in row]
        order = sorted(range(len(z)), key=lambda t: -z[t])
        logit_gaps.extend(z[a] - z[b] for a, b in zip(order, order[1:], strict=False))
        kept = order[:top_k or len(z)]
        top = z[order[0]]
        weights = [math.exp(z[t] - top) for t in kept]
        total = sum(weights)
        probs, above = [0.0] * len(z), 0.0
        for t, w in zip(kept, weights, strict=True):
            if top_p < 1.0:
                gaps.append(abs(above - top_p))
            if above < top_p:
                probs[t] = w / total
            above += w / total
        mass = sum(probs)
        return [v / mass for v in probs]

    def draw(probs, u):
        cumulative = 0.0
        for v in probs:
            cumulative += v
            gaps.append(abs(cumulative - u))
            if cumulative > u:
                return

    p = [warp(row) for row in target.tolist()]
    q = [warp(row) for row in draft.tolist()]
    u = uniforms.tolist()
    for i, x in enumerate(tokens.tolist()):
        if q[i][x] <= 0.0:
            return False
        ratio = p[i][x] / q[i][x]
        gaps.append(abs(u[i] - ratio))
        if u[i] >= ratio:
            residual = [max(a - b, 0.0) for a, b in zip(p[i], q[i], strict=True)]
            total = sum(residual)
            gaps.append(total)  # a residual of almost no mass would be normalised from rounding noise
            draw([v / total for v in residual], u[-1])
            break
    else:
        draw(p[-1], u[-1])
    return min(gaps) >= TIE and min(logit_gaps) >= LOGIT_GAP


def fresh(seed):
    """A random speculative step (0-6 draft tokens, vocabulary 1-300, a draft near or far from the target, or
    the target itself; temperature 0.5-2, top_k and top_p on or off; random uniforms), redrawn until every
    comparison is at least 1e-5 from a tie, new at every grading."""
    rng = random.Random(seed)
    while True:
        gamma, vocab = rng.randint(0, 6), rng.choice([1, 2, rng.randint(2, 30), rng.randint(2, 300)])
        warp = {}
        if rng.random() < 0.6:
            warp["temperature"] = rng.uniform(0.5, 2.0)
        if rng.random() < 0.5:
            warp["top_k"] = rng.randint(1, vocab)
        if rng.random() < 0.5:
            warp["top_p"] = rng.uniform(0.2, 0.99)
        uniforms = [rng.uniform(0.0, 0.999) for _ in range(gamma + 1)]
        # closeness 0: the draft is the target itself (every token accepted, and a bonus token).
        closeness = rng.choice([0.0, rng.uniform(0.05, 1.0), rng.uniform(0.05, 1.0), rng.uniform(1.0, 4.0)])
        case = _case("fresh", rng.randrange(2 ** 32), gamma, vocab, uniforms, spread=rng.uniform(0.5, 4.0),
                     closeness=closeness, **warp)
        if _clear_of_ties(*case["args"], **warp):
            return {"args": case["args"], "kwargs": case["kwargs"]}
