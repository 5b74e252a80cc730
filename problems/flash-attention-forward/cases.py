import random

import torch

F32 = torch.float32
F16 = torch.float16


def _qkv(seed, b, h, s, d, scale=1.0, dtype=F32, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(b, h, s, d, generator=g) * scale
    k = torch.randn(b, h, s, d, generator=g) * scale
    v = torch.randn(b, h, s, d, generator=g)
    # A shift common to every key moves all of a row's scores by the same amount (q . shift):
    # the softmax is unchanged, exp without a running max is not.
    k = k + shift
    return q.to(dtype), k.to(dtype), v.to(dtype)


def _case(name, seed, b, h, s, d, causal, block_q, block_k, **kw):
    return {"name": name, "args": (*_qkv(seed, b, h, s, d, **kw), causal, block_q, block_k)}


def _rising():
    # One head whose scores grow along the keys: every new key tile raises the running max, so
    # every tile rescales what came before.
    s, d = 24, 4
    q = torch.ones(1, 1, s, d)
    k = torch.arange(s, dtype=F32)[:, None].repeat(1, d).reshape(1, 1, s, d) * 0.5
    v = torch.randn(1, 1, s, d, generator=torch.Generator().manual_seed(9))
    return {"name": "scores rising along the keys: every tile raises the max (causal, 8 x 8 tiles)",
            "args": (q, k, v, True, 8, 8)}


def cases():
    return [
        _case("one query, one key (S = 1)", 1, 1, 1, 1, 8, True, 4, 4),
        _case("non-causal, S = 37 with 16 x 16 tiles (partial last tiles)", 2, 2, 2, 37, 16, False, 16, 16),
        _case("causal, S = 37 with 16 x 16 tiles", 3, 2, 2, 37, 16, True, 16, 16),
        _case("causal, Br = 16 > Bc = 8, S = 45: a key tile past a tile's first row", 4, 1, 3, 45, 8, True, 16, 8),
        _case("causal, Br = 8 < Bc = 32, S = 50", 5, 1, 2, 50, 8, True, 8, 32),
        _case("causal, tiles of one row and one key", 6, 1, 1, 9, 4, True, 1, 1),
        _case("tiles larger than S (one tile)", 7, 2, 1, 13, 8, True, 64, 64),
        _rising(),
        _case("keys shifted so that scores reach the hundreds: exp overflows without the running max", 10, 1, 2, 40, 16, False, 16, 16,
              shift=40.0, scale=2.0),
        _case("fp16 inputs, scores about +-60, S = 130 (accumulate in fp32)", 11, 1, 2, 130, 64, True, 32, 16,
              dtype=F16, scale=3.0),
        _case("fp16 inputs, S = 100 non-causal, Br = 32, Bc = 24", 12, 2, 2, 100, 32, False, 32, 24, dtype=F16),
        # Last, so that a method's other mistakes show first: the S x S scores of this case (2 heads x 1024^2
        # x 4 bytes = 8 MiB; one head's alone, 4 MiB) do not fit the worker's 4 MiB, while 128 x 128 tiles
        # take 64 KiB a head.
        _case("S = 1024, 2 heads, causal, fp16, 128 x 128 tiles: the S x S scores (8 MiB) exceed the 4 MiB limit",
              13, 1, 2, 1024, 32, True, 128, 128, dtype=F16),
    ]


def fresh(seed):
    """Random batch, heads, S (often not a multiple of the tiles), D, causal or not, unequal tile sizes (1 to
    past S), fp32 or fp16, and sometimes keys with a large common shift."""
    rng = random.Random(seed)
    s, d = rng.choice([1, rng.randint(1, 16), rng.randint(2, 96)]), rng.choice([1, 4, 8, 16, 32, 64, rng.randint(1, 64)])
    while True:  # at most 80 tiles, as the fixed cases: the loop is Python
        block_q, block_k = (rng.choice([1, 2, rng.randint(1, 16), rng.randint(1, s + 8)]) for _ in range(2))
        if -(-s // block_q) * -(-s // block_k) <= 80:
            break
    dtype = rng.choice([F32, F16])
    kw = {"dtype": dtype, "scale": rng.uniform(0.3, 3.0)}
    if rng.random() < 0.25:
        kw.update(shift=rng.uniform(-40.0, 40.0), scale=rng.uniform(0.5, 2.0))
    return {"args": (*_qkv(rng.randrange(2**62), rng.randint(1, 2), rng.randint(1, 3), s, d, **kw),
                     rng.random() < 0.5, block_q, block_k)}
