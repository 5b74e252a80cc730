import random

import torch


def _batch(seed, n, vocab, dtype=torch.float32, scale=2.0, ignored=(), ignore_index=-100, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    logits = (torch.randn(n, vocab, generator=g) * scale + shift).to(dtype)
    target = torch.randint(0, vocab, (n,), generator=g)
    for row in ignored:
        target[row] = ignore_index
    return logits, target


def _example():
    logits = torch.tensor([[2.0, 1.0, 0.0, -1.0, 3.0, 0.5], [0.0, 0.5, 4.0, 1.0, -2.0, 1.0]])
    return logits, torch.tensor([3, 1])


def cases():
    return [
        {"name": "example: 2 rows, vocabulary 6 over 2 ranks", "args": (*_example(), 2)},
        {"name": "one rank", "args": (*_batch(1, 4, 9), 1)},
        {"name": "vocabulary 10 over 4 ranks: shards of 3, 3, 3, 1", "args": (*_batch(2, 5, 10), 4)},
        {"name": "pad_to 8: vocabulary 30 over 4 ranks, shards of 8, 8, 8, 6", "args": (*_batch(3, 6, 30), 4, 8)},
        {"name": "pad_to 8: vocabulary 20 over 4 ranks, the last rank holds nothing",
         "args": (*_batch(4, 5, 20, shift=-30.0), 4, 8)},
        {"name": "ignored rows (ignore_index -100)", "args": (*_batch(5, 8, 16, ignored=(1, 4, 5)), 2)},
        {"name": "ignore_index 3 (a real token id is ignored)", "args": (*_batch(6, 6, 12, ignored=(0, 2), ignore_index=3), 3),
         "kwargs": {"ignore_index": 3}},
        {"name": "every row ignored: the mean is 0 / 0", "args": (*_batch(7, 3, 8, ignored=(0, 1, 2)), 2)},
        {"name": "bf16 logits near 100 (computed in float32)", "args": (*_batch(8, 4, 24, torch.bfloat16, shift=100.0), 3)},
        {"name": "logits near 1e4: exp overflows without the max", "args": (*_batch(10, 5, 40, shift=1e4), 5)},
        {"name": "vocabulary 1000 over 8 ranks, pad_to 64 (shards of 128, the last of 104)",
         "args": (*_batch(9, 16, 1000, ignored=(3,)), 8, 64)},
    ]


def fresh(seed):
    """A random batch (1-16 rows, vocabulary 1-300, tp 1-8, pad_to 1-64 so that ranks may hold nothing, some
    rows ignored, ignore_index -100 or a real token id), float32 or bf16 logits at a random scale and shift,
    new at every grading."""
    rng = random.Random(seed)
    n, vocab, tp = rng.randint(1, 16), rng.choice([1, rng.randint(1, 40), rng.randint(1, 300)]), rng.randint(1, 8)
    pad_to = rng.choice([1, 1, 2, 4, 8, 16, 64])
    ignore_index = -100 if rng.random() < 0.7 else rng.randrange(vocab)
    ignored = [row for row in range(n) if rng.random() < 0.2]
    dtype = rng.choice([torch.float32, torch.bfloat16])
    # bf16 holds ~3 significant digits: near 1e4 its logits would be multiples of 64, so it stays near 100 at most.
    shift = rng.choice([0.0, rng.uniform(-50, 50), 100.0] + ([1e4] if dtype == torch.float32 else []))
    logits, target = _batch(seed % 2 ** 32, n, vocab, dtype, scale=rng.uniform(0.1, 4.0), ignored=ignored,
                            ignore_index=ignore_index, shift=shift)
    args = (logits, target, tp) if pad_to == 1 and rng.random() < 0.5 else (logits, target, tp, pad_to)
    return {"args": args, "kwargs": {} if ignore_index == -100 else {"ignore_index": ignore_index}}
