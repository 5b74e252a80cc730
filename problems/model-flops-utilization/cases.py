import random

PEAKS = [275e12, 312e12, 989e12, 197e12, 459e12, 1979e12, 123.5e12]  # dense FLOP/s of TPU v4, A100, H100, ...


def fresh(seed):
    """A random model, sequence length, cluster and throughput, new at every grading (never shown): an MFU
    mostly between 1% and 80%, sometimes a stalled step (0 tokens/s) or an impossible one above 100%;
    num_chips sometimes left at its default."""
    rng = random.Random(seed)
    num_layers, num_heads = rng.randint(1, 128), rng.randint(1, 128)
    head_dim = rng.choice([32, 64, 96, 128, 256, rng.randint(1, 512)])
    num_params = rng.randrange(1, 10 ** rng.randint(3, 12))
    seq_len = rng.choice([1, rng.randint(1, 4096), 2 ** rng.randint(8, 20)])
    peak = rng.choice([*PEAKS, round(rng.uniform(1e12, 2e15), -9)])
    num_chips = rng.choice([1, rng.randint(1, 16), rng.randint(1, 8192)])
    flops_per_token = 6 * num_params + 12 * num_layers * num_heads * head_dim * seq_len
    mfu = rng.choice([0.0, rng.uniform(0.01, 0.8), rng.uniform(0.8, 3.0)])
    tokens_per_second = float(f"{mfu * peak * num_chips / flops_per_token:.6g}")  # as a log would print it
    args = [tokens_per_second, num_params, num_layers, num_heads, head_dim, seq_len, peak]
    return {"args": args if num_chips == 1 and rng.random() < 0.5 else [*args, num_chips]}
