import random


def fresh(seed):
    """A random model and cache, new at every grading (never shown): MHA, GQA or MQA, fp8 to fp32, seq_len from
    0 (before prefill) up to 256K tokens, with or without a sliding window (shorter, equal or longer than it)."""
    rng = random.Random(seed)
    num_kv_heads = rng.choice([1, 1, 2, 4, 8, rng.randint(1, 16)])
    num_heads = num_kv_heads * rng.choice([1, 1, 2, 4, 7, rng.randint(1, 12)])  # num_kv_heads divides num_heads
    head_dim = rng.choice([64, 80, 96, 128, 256, rng.randint(1, 300)])
    seq_len = rng.choice([0, 1, rng.randint(1, 64), rng.randint(1, 1 << 18)])
    args = [rng.randint(1, 128), num_heads, num_kv_heads, head_dim, seq_len, rng.randint(1, 64), rng.choice([1, 2, 4])]
    window = rng.random()
    if window < 0.4:
        return {"args": args}
    if window < 0.5:
        return {"args": args, "kwargs": {"sliding_window": None}}
    sliding_window = rng.choice([1, max(1, seq_len), seq_len + rng.randint(1, 5000), rng.randint(1, 1 << 16)])
    if rng.random() < 0.5:
        return {"args": [*args, sliding_window]}
    return {"args": args, "kwargs": {"sliding_window": sliding_window}}
