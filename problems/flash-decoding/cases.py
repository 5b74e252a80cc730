"""Decoding steps for flash-decoding: one query per sequence against its cached keys and values (the
positions past each length filled with large junk that must not count), and the output and
log-sum-exp of the same query over a shared prefix, computed elsewhere."""
import math
import random

import torch


def _prefix(g, B, H, D, dtype, present, shift):
    """The prefix's attention for each head: an output and its log-sum-exp (-inf where there is none)."""
    out = torch.randn(B, H, D, generator=g).to(dtype)
    lse = (torch.randn(B, H, generator=g) * 2 + shift).float()
    missing = torch.tensor([not p for p in present])
    lse[missing] = float("-inf")
    out[missing] = 0
    return out, lse


def _case(seed, B, H, Hkv, D, S, lengths, num_splits, scale=None, dtype=torch.float32, present=None, shift=0.0,
          q_scale=1.0):
    g = torch.Generator().manual_seed(seed)
    q = (torch.randn(B, H, D, generator=g) * q_scale).to(dtype)
    k = torch.randn(B, Hkv, S, D, generator=g)
    v = torch.randn(B, Hkv, S, D, generator=g)
    for b, n in enumerate(lengths):
        k[b, :, n:] = 1e4  # padding: would dominate every softmax if it were counted
        v[b, :, n:] = -1e4
    prefix_out, prefix_lse = _prefix(g, B, H, D, dtype, present if present is not None else [True] * B, shift)
    return (q, k.to(dtype), v.to(dtype), torch.tensor(lengths), num_splits,
            scale if scale is not None else 1 / math.sqrt(D), prefix_out, prefix_lse)


def cases():
    return [
        {"name": "one sequence, 4 heads over 2 KV heads, 10 positions in 3 splits (4, 4, 2)",
         "args": _case(1, 1, 4, 2, 8, 12, [10], 3)},
        {"name": "lengths 37, 5 and 0 with 4 splits: short splits, empty splits, an empty cache",
         "args": _case(2, 3, 4, 4, 16, 40, [37, 5, 0], 4)},
        {"name": "no prefix for some sequences (lse -inf); a sequence with neither: zeros",
         "args": _case(3, 3, 2, 1, 8, 16, [16, 9, 0], 2, present=[True, False, False])},
        {"name": "one split (no split at all) and a non-default scale 0.3",
         "args": _case(4, 2, 8, 2, 32, 64, [64, 31], 1, scale=0.3)},
        {"name": "more splits than positions (3 positions, 8 splits)", "args": _case(5, 1, 2, 2, 4, 8, [3], 8)},
        {"name": "scores and a prefix lse near 100: exp would overflow without a shift",
         "args": _case(6, 2, 4, 1, 16, 48, [48, 20], 4, q_scale=60.0, shift=100.0)},
        {"name": "bf16 query, keys and values (compute in float32)",
         "args": _case(7, 2, 8, 4, 64, 128, [128, 77], 4, dtype=torch.bfloat16)},
        {"name": "multi-query attention (one KV head for 8 heads), 300 positions in 7 splits",
         "args": _case(8, 1, 8, 1, 32, 300, [300], 7)},
        {"name": "prefix far below the own positions (lse -50): it barely counts",
         "args": _case(9, 2, 4, 2, 16, 32, [32, 17], 2, shift=-50.0)},
    ]


def fresh(seed):
    """Random B, H over a random KV-head count, D, S, lengths (0 to S), splits (1 to more than the positions),
    scale, dtype, missing prefixes, and scores and prefix log-sum-exps up to about 100."""
    rng = random.Random(seed)
    B, Hkv = rng.randint(1, 4), rng.choice([1, 1, 2, 4, 8])
    H = Hkv * rng.choice([g for g in (1, 2, 4, 8) if Hkv * g <= 8])
    D, S = rng.choice([1, 4, 8, 16, 32, 64, rng.randint(1, 64)]), rng.choice([1, rng.randint(1, 40), rng.randint(1, 300)])
    lengths = [rng.choice([0, S, rng.randint(0, S), rng.randint(0, S)]) for _ in range(B)]
    num_splits = rng.choice([1, 2, rng.randint(1, 8), rng.randint(1, 16)])
    present = [rng.random() < 0.75 for _ in range(B)]
    q_scale, shift = rng.choice([(1.0, 0.0), (rng.uniform(0.2, 3.0), rng.uniform(-50.0, 10.0)),
                                 (rng.uniform(10.0, 30.0), rng.uniform(50.0, 100.0))])
    # Scores of at most about 100, as in the fixed cases: a float32 dot product summed in another order
    # then moves the softmax weights well within the tolerance.
    scale = None if q_scale > 3 or rng.random() < 0.6 else rng.uniform(0.1, 2.0) / math.sqrt(D)
    return {"args": _case(rng.randrange(2**62), B, H, Hkv, D, S, lengths, num_splits, scale=scale,
                          dtype=rng.choice([torch.float32, torch.bfloat16]), present=present, shift=shift,
                          q_scale=q_scale)}
