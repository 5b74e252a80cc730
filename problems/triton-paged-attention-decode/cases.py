"""Inputs for triton-paged-attention-decode: a pool of KV blocks in fp16 (every slot filled, so stale rows
exist), block tables that scatter each sequence's blocks over the pool in random order, padded with a value
that is no block number, and one query token per sequence.

Trusted code: the grader calls it for the correctness cases, and the benchmark calls `make_inputs`
with a fresh seed for every timed repetition.
"""

import random

import torch

PADDING = 2 ** 31 - 1  # a table entry past a sequence's last block: no block of any pool


def lengths(batch, max_len):
    """The sequences' lengths, from the shape alone: from max_len down towards max_len / 2 (at least 1)."""
    return [max(1, max_len - i * max_len // (2 * batch)) for i in range(batch)]


def make_inputs(batch, q_heads, kv_heads, head_dim, block_size, max_len, seed=0, device="cpu", seq_lens=None,
                q_scale=1.0):
    gen = torch.Generator(device=device).manual_seed(seed)
    seq_lens = lengths(batch, max_len) if seq_lens is None else seq_lens
    needed = [-(-n // block_size) for n in seq_lens]
    num_blocks = sum(needed) + 3  # a few blocks no sequence owns
    order = torch.randperm(num_blocks, device=device, generator=gen).tolist()
    tables = torch.full((batch, max(needed) + 1), PADDING, dtype=torch.int32)
    for b, n in enumerate(needed):
        tables[b, :n] = torch.tensor(order[:n], dtype=torch.int32)
        order = order[n:]
    q = (torch.randn(batch, q_heads, head_dim, device=device, generator=gen) * q_scale).half()
    k_cache = torch.randn(num_blocks, block_size, kv_heads, head_dim, device=device, generator=gen).half()
    v_cache = torch.randn(num_blocks, block_size, kv_heads, head_dim, device=device, generator=gen).half()
    return (q, k_cache, v_cache, tables.to(device), torch.tensor(seq_lens, dtype=torch.int32, device=device),
            head_dim ** -0.5)


def work(batch, q_heads, kv_heads, head_dim, block_size, max_len):
    """Bytes from the shape alone: each sequence's keys and values (fp16) read once, its query (fp16) read and
    its output (fp32) written once."""
    return 4 * sum(lengths(batch, max_len)) * kv_heads * head_dim + 6 * batch * q_heads * head_dim


def cases():
    return [
        {"name": "one sequence of one token: the output is its value row",
         "args": make_inputs(1, 2, 1, 24, 16, 1, seed=10)},
        {"name": "block_size 8, lengths 8 (a full block) and 17 (one slot into a third block); 2 KV heads of 2",
         "args": make_inputs(2, 4, 2, 32, 8, 17, seed=11, seq_lens=[8, 17])},
        {"name": "8 query heads on 1 KV head, head_dim 24, lengths 40 and 16; logits up to about 100",
         "args": make_inputs(2, 8, 1, 24, 16, 40, seed=12, seq_lens=[40, 16], q_scale=25.0)},
        {"name": "block_size 4, lengths 1, 7 and 5",
         "args": make_inputs(3, 2, 1, 16, 4, 7, seed=13, seq_lens=[1, 7, 5])},
    ]


def fresh(seed):
    """Random sizes (1-3 sequences of 1-40 tokens, blocks of 2, 4, 8 or 16 slots, 1-2 KV heads and groups of 1-4, an
    even head_dim up to 64; a few blocks per program, for the interpreter), new at every grading."""
    rng = random.Random(seed)
    batch, block_size = rng.randint(1, 3), rng.choice([2, 4, 8, 16])
    kv_heads, group, head_dim = rng.randint(1, 2), rng.choice([1, 2, 4]), 2 * rng.randint(4, 32)
    seq_lens = [rng.choice([1, rng.randint(1, 5 * block_size)]) for _ in range(batch)]
    return {"args": make_inputs(batch, kv_heads * group, kv_heads, head_dim, block_size, max(seq_lens),
                                seed=seed % 2 ** 32, seq_lens=seq_lens)}
