"""Decoding steps for flash-decoding: one query per sequence against its cached keys and values (the
positions past each length filled with large junk that must not count), and the output and
log-sum-exp of the same query over a shared prefix, computed elsewhere."""
import math

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
