"""Decoding steps for flash-decoding, from one split's worker: one query per sequence against this split's
cached keys and values (the positions past each length filled with large junk that must not count), and
the output and log-sum-exp of the same query over the sequence's other splits and a shared prefix,
computed elsewhere from keys that are never sent."""
import math
import random

import torch


def _part(g, H, D, dtype, n, q, scale):
    """A part computed elsewhere: attention of q over n keys drawn here and dropped (zeros and -inf when n = 0)."""
    if n == 0:
        return torch.zeros(H, D).to(dtype), torch.full((H,), float("-inf"))
    k, v = torch.randn(H, n, D, generator=g), torch.randn(H, n, D, generator=g)
    scores = torch.einsum("hd,hnd->hn", q.float(), k) * scale
    return torch.einsum("hn,hnd->hd", torch.softmax(scores, -1), v).to(dtype), torch.logsumexp(scores, -1)


def _case(seed, B, H, Hkv, D, C, lengths, parts, scale=None, dtype=torch.float32, q_scale=1.0, shift=0.0):
    """parts[b]: the sizes of sequence b's parts computed elsewhere (0: an empty part); shift: added to their lse."""
    g = torch.Generator().manual_seed(seed)
    scale = scale if scale is not None else 1 / math.sqrt(D)
    q = (torch.randn(B, H, D, generator=g) * q_scale).to(dtype)
    k = torch.randn(B, Hkv, C, D, generator=g)
    v = torch.randn(B, Hkv, C, D, generator=g)
    for b, n in enumerate(lengths):
        k[b, :, n:] = 1e4  # padding: would dominate every softmax if it were counted
        v[b, :, n:] = -1e4
    R = max(map(len, parts))
    parts_out, parts_lse = torch.zeros(B, H, R, D).to(dtype), torch.full((B, H, R), float("-inf"))
    for b, sizes in enumerate(parts):
        for i, n in enumerate(sizes):
            parts_out[b, :, i], parts_lse[b, :, i] = _part(g, H, D, dtype, n, q[b], scale)
    parts_lse = parts_lse + shift
    return (q, k.to(dtype), v.to(dtype), torch.tensor(lengths), scale, parts_out, parts_lse)


def cases():
    return [
        {"name": "one sequence, 4 heads over 2 KV heads, 4 positions here, a prefix and two other splits",
         "args": _case(1, 1, 4, 2, 8, 4, [4], [[6, 4, 4]])},
        {"name": "lengths 10, 5 and 0: a full split, a short one, an empty one; empty parts elsewhere too",
         "args": _case(2, 3, 4, 4, 16, 10, [10, 5, 0], [[9, 10, 10, 0], [3, 0, 0, 0], [0, 0, 0, 0]])},
        {"name": "nothing anywhere for one sequence: zeros and -inf",
         "args": _case(3, 2, 2, 1, 8, 8, [8, 0], [[5, 0], [0, 0]])},
        {"name": "one part elsewhere and a non-default scale 0.3",
         "args": _case(4, 2, 8, 2, 32, 16, [16, 7], [[31], [12]], scale=0.3)},
        {"name": "many parts elsewhere (12 splits of 3 positions), 3 positions here",
         "args": _case(5, 1, 2, 2, 4, 3, [3], [[3] * 12])},
        {"name": "scores and part lses near 100: exp would overflow without a shift",
         "args": _case(6, 2, 4, 1, 16, 12, [12, 5], [[20, 12, 12], [8, 0, 0]], q_scale=60.0, shift=20.0)},
        {"name": "bf16 query, keys, values and parts (compute in float32)",
         "args": _case(7, 2, 8, 4, 64, 32, [32, 13], [[40, 32, 32, 32], [20, 32, 0, 0]], dtype=torch.bfloat16)},
        {"name": "multi-query attention (one KV head for 8 heads), 43 positions here, 6 splits elsewhere",
         "args": _case(8, 1, 8, 1, 32, 43, [43], [[43] * 6])},
        {"name": "parts far below the own positions (lse -50): they barely count",
         "args": _case(9, 2, 4, 2, 16, 16, [16, 9], [[7, 16], [16, 0]], shift=-50.0)},
    ]


def fresh(seed):
    """Random B, H over a random KV-head count, D, split capacity, lengths (0 to capacity), parts elsewhere (1 to
    16, some empty), scale, dtype, and scores and part log-sum-exps up to about 100."""
    rng = random.Random(seed)
    B, Hkv = rng.randint(1, 4), rng.choice([1, 1, 2, 4, 8])
    H = Hkv * rng.choice([g for g in (1, 2, 4, 8) if Hkv * g <= 8])
    D, C = rng.choice([1, 4, 8, 16, 32, 64, rng.randint(1, 64)]), rng.choice([1, rng.randint(1, 40), rng.randint(1, 100)])
    lengths = [rng.choice([0, C, rng.randint(0, C), rng.randint(0, C)]) for _ in range(B)]
    R = rng.choice([1, 2, rng.randint(1, 8), rng.randint(1, 16)])
    parts = [[rng.choice([0, C, rng.randint(0, 100)]) for _ in range(R)] for _ in range(B)]
    q_scale, shift = rng.choice([(1.0, 0.0), (rng.uniform(0.2, 3.0), rng.uniform(-50.0, 10.0)),
                                 (rng.uniform(10.0, 30.0), rng.uniform(0.0, 30.0))])
    # Scores of at most about 100, as in the fixed cases: a float32 dot product summed in another order
    # then moves the softmax weights well within the tolerance.
    scale = None if q_scale > 3 or rng.random() < 0.6 else rng.uniform(0.1, 2.0) / math.sqrt(D)
    return {"args": _case(rng.randrange(2**62), B, H, Hkv, D, C, lengths, parts, scale=scale,
                          dtype=rng.choice([torch.float32, torch.bfloat16]), q_scale=q_scale, shift=shift)}
