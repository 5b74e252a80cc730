import random

import torch

NAN = float("nan")


def _case(name, seed, heads, kv_heads, dim, window, start_pos, new, dtype=torch.float32, unwritten=0.0,
          **kwargs):
    """A cache as a real run leaves it: the keys and values of positions 0 .. start_pos - 1 written in
    turn into slot position % window; slots never written hold `unwritten` (torch.empty's garbage)."""
    g = torch.Generator().manual_seed(seed)
    history_k = torch.randn(kv_heads, start_pos, dim, generator=g, dtype=torch.float64)
    history_v = torch.randn(kv_heads, start_pos, dim, generator=g, dtype=torch.float64)
    k_cache = torch.full((kv_heads, window, dim), unwritten, dtype=torch.float64)
    v_cache = torch.full((kv_heads, window, dim), unwritten, dtype=torch.float64)
    for p in range(start_pos):
        k_cache[:, p % window] = history_k[:, p]
        v_cache[:, p % window] = history_v[:, p]
    q = torch.randn(heads, new, dim, generator=g, dtype=torch.float64)
    k = torch.randn(kv_heads, new, dim, generator=g, dtype=torch.float64)
    v = torch.randn(kv_heads, new, dim, generator=g, dtype=torch.float64)
    args = tuple(t.to(dtype) for t in (q, k, v, k_cache, v_cache)) + (start_pos, window)
    return {"name": name, "args": args, "kwargs": kwargs}


def _example():
    q = torch.tensor([[[1.0, 0.0]], [[0.0, 1.0]]])          # 2 query heads, 1 new token, D = 2
    k = torch.tensor([[[0.0, 0.0]]])                       # 1 KV head (multi-query)
    v = torch.tensor([[[4.0, 4.0]]])
    k_cache = torch.tensor([[[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]])    # window 3: slots 0, 1, 2
    v_cache = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]])
    return {"name": "example: MQA, window 3, decoding position 4 (slots hold positions 3, 1, 2)",
            "args": (q, k, v, k_cache, v_cache, 4, 3)}


def cases():
    return [
        _example(),
        _case("prefill of 5 tokens into an empty cache, window 8", 1, 4, 2, 8, 8, 0, 5),
        _case("prefill of 11 tokens, window 4: the chunk evicts its own first keys", 2, 4, 2, 8, 4, 0, 11),
        _case("decode, cache not yet full (3 of 8 slots written; the rest hold NaN garbage)", 3, 4, 1, 8, 8, 3, 1,
              unwritten=NAN),
        _case("decode, cache full and wrapped (position 21, window 8)", 4, 8, 2, 16, 8, 21, 1),
        _case("chunk of 6 at position 10, window 4: wraps twice", 5, 6, 3, 8, 4, 10, 6),
        _case("chunk of 3 at position 5, window 8 (cache partly full)", 6, 4, 4, 8, 8, 5, 3),
        _case("window 1: each token sees only itself", 7, 2, 1, 4, 1, 7, 3),
        _case("GQA 8 query heads over 2 KV heads, softmax_scale 0.3, chunk of 5 at position 13", 8, 8, 2, 16, 6, 13, 5,
              softmax_scale=0.3),
        _case("float64, MHA (4 KV heads of 4), chunk of 9 at position 30, window 16", 9, 4, 4, 8, 16, 30, 9,
              dtype=torch.float64),
    ]


def fresh(seed):
    """A random chunk (1-12 tokens) at a random position over a rolling cache (window 1-16: empty, partly full
    or wrapped, unwritten slots 0 or NaN), random GQA grouping, head dim, dtype and softmax_scale, new at every
    grading."""
    rng = random.Random(seed)
    kv_heads = rng.randint(1, 4)
    window = rng.choice([1, rng.randint(1, 16)])
    start_pos = rng.choice([0, rng.randint(0, window), rng.randint(0, 4 * window + 8)])
    kwargs = {"softmax_scale": rng.uniform(0.05, 0.6)} if rng.random() < 0.3 else {}
    return _case("fresh", seed % 2 ** 32, kv_heads * rng.randint(1, 4), kv_heads, rng.randint(1, 16), window,
                 start_pos, rng.randint(1, 12), rng.choice([torch.float32, torch.float64]),
                 unwritten=rng.choice([0.0, NAN]), **kwargs)
