"""Inputs for triton-rotary-in-place: q and k as views of one fused qkv projection (strided along tokens),
positions in any order (a batch of sequences at different points), and the cos/sin cache of base 10000.

Trusted code: the grader calls it for the correctness cases, and the benchmark calls `make_inputs`
with a fresh seed for every timed repetition.
"""

import random

import torch

CORRECTNESS_SHAPES = [(1, 1, 1, 4), (5, 8, 2, 64), (7, 4, 4, 80), (6, 3, 1, 2)]
F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16


def cos_sin_cache(max_positions, head_dim, base=10000.0, device="cpu"):
    """[max_positions, head_dim] fp32: cos of the head_dim / 2 angles of each position, then their sin."""
    inv_freq = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64, device=device) / head_dim)
    angles = torch.arange(max_positions, dtype=torch.float64, device=device)[:, None] * inv_freq
    return torch.cat([angles.cos(), angles.sin()], dim=-1).float()


def make_inputs(tokens, q_heads, kv_heads, head_dim, seed=0, device="cpu", dtype=BF16, max_positions=4096,
                positions=None):
    gen = torch.Generator(device=device).manual_seed(seed)
    width = (q_heads + 2 * kv_heads) * head_dim
    qkv = torch.randn(tokens, width, device=device, generator=gen).to(dtype)
    q = qkv[:, :q_heads * head_dim].view(tokens, q_heads, head_dim)
    k = qkv[:, q_heads * head_dim:(q_heads + kv_heads) * head_dim].view(tokens, kv_heads, head_dim)
    if positions is None:
        positions = torch.randint(0, max_positions, (tokens,), device=device, generator=gen)
    return (q, k, positions.to(device), cos_sin_cache(max_positions, head_dim, device=device))


def work(tokens, q_heads, kv_heads, head_dim):
    """Bytes from the shape alone: q and k (bf16) read and written once, each token's cos and sin row (fp32)
    and its position (int64) read once."""
    return 4 * tokens * (q_heads + kv_heads) * head_dim + 4 * tokens * head_dim + 8 * tokens


def cases():
    return [
        {"name": "one token at position 1, head_dim 4, fp32",
         "args": make_inputs(1, 1, 1, 4, seed=10, dtype=F32, positions=torch.tensor([1]))},
        {"name": "decode batch: 5 tokens at scattered positions up to 4095, 8 query and 2 KV heads, bf16",
         "args": make_inputs(5, 8, 2, 64, seed=11, positions=torch.tensor([4095, 0, 17, 1000, 2049]))},
        {"name": "prefill chunk at 100..106, head_dim 80 (half 40: no power of two), fp16",
         "args": make_inputs(7, 4, 4, 80, seed=12, dtype=F16, positions=torch.arange(100, 107))},
        {"name": "head_dim 2 (a single pair), 3 query heads and 1 KV head, fp32",
         "args": make_inputs(6, 3, 1, 2, seed=13, dtype=F32)},
    ]


def fresh(seed):
    """Random tokens (1-12), heads (KV heads dividing query heads, 1-8), an even head_dim up to 128, a random
    dtype and random positions below 4096, new at every grading."""
    rng = random.Random(seed)
    kv_heads = rng.choice([1, 2, rng.randint(1, 4)])
    q_heads = kv_heads * rng.choice([1, 2, 4])
    head_dim = 2 * rng.choice([1, rng.randint(1, 32), rng.randint(1, 64)])
    return {"args": make_inputs(rng.randint(1, 12), q_heads, kv_heads, head_dim, seed=seed % 2 ** 32,
                                dtype=rng.choice([F32, F16, BF16]))}
