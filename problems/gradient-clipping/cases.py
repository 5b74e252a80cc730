import random

import torch

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16
INF = float("inf")


def _grads(seed, shapes, scale=1.0, dtype=F32):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(*s, generator=g) * scale).to(dtype) for s in shapes]


def _example():
    # The statement's example: norms 5 and 12 -> total 13; clipped to 1 -> coef 1/13.
    return [torch.tensor([3.0, 4.0]), torch.tensor([[12.0]])]


def _huge_entry():
    # A diverging run: one entry is 1e15. It is the whole norm; after clipping it is max_norm
    # and every other entry shrinks to ~1e-15. (Its square, 1e30, still fits float32.)
    grads = _grads(3, [(7,), (3, 5)])
    grads[1][2, 4] = -1e15
    return grads


def _fp16_overflow():
    # fp16 gradients of magnitude ~300: each square (~9e4) overflows fp16 (max 65504), but the
    # norm (~3e3) and the clipped values are representable.
    g = torch.Generator().manual_seed(4)
    return [(torch.rand(64, generator=g) * 100 + 250).to(F16), (torch.randn(4, 8, generator=g) * 300).to(F16)]


def cases():
    return [
        {"name": "example: norms 5 and 12, total 13, max_norm 1", "args": (_example(), 1.0)},
        {"name": "norm below max_norm: nothing changes (coef clamped to 1)", "args": (_grads(1, [(10,), (4, 4)], 0.01), 1.0)},
        {"name": "several tensors clipped by one global coefficient", "args": (_grads(2, [(16,), (8, 8), (3, 2, 5)]), 2.0)},
        {"name": "all-zero gradients: total 0, unchanged, no NaN", "args": ([torch.zeros(5), torch.zeros(2, 3)], 1.0)},
        {"name": "one entry is -1e15: it is the whole norm", "args": (_huge_entry(), 1.0)},
        {"name": "fp16 gradients whose squares overflow fp16", "args": (_fp16_overflow(), 1.0)},
        {"name": "vanishing gradients (norm 4e-7, below torch's 1e-6) clipped to 1e-7",
         "args": (_grads(10, [(8,), (2, 4)], 1e-7), 1e-7)},
        {"name": "bf16 gradients, max_norm 0.5", "args": (_grads(5, [(32,), (6, 6)], 1.0, BF16), 0.5)},
        {"name": "norm_type inf: the largest |g|", "args": (_grads(6, [(12,), (5, 5)], 3.0), 1.5, INF)},
        {"name": "norm_type 1", "args": (_grads(7, [(9,), (2, 7)]), 4.0, 1.0)},
        {"name": "a single scalar (0-dim) gradient", "args": ([torch.tensor(-8.0)], 2.0)},
        {"name": "an empty tensor among the gradients", "args": ([torch.zeros(0), torch.tensor([6.0, 8.0])], 5.0)},
        {"name": "norm_type inf with an empty tensor among the gradients: its norm is 0",
         "args": ([torch.zeros(0, 3), torch.tensor([6.0, -8.0])], 5.0, INF)},
        {"name": "empty list: total 0", "args": ([], 1.0)},
    ]


def _near_a_tie(grads, max_norm, norm_type):
    """Whether some clipped value lies within 1e-6 (relative) of a rounding boundary of its dtype where one
    rounding step exceeds the tolerance (every bf16 value, fp16 subnormals): there a coefficient one float32
    step away, from a norm summed in another order, would round it the other way."""
    per_tensor = torch.stack([torch.linalg.vector_norm(g.to(F32), norm_type) if g.numel() else torch.tensor(0.0)
                              for g in grads])
    coef = torch.clamp(max_norm / (torch.linalg.vector_norm(per_tensor, norm_type) + 1e-6), max=1.0)
    for g in grads:
        y = g.to(F32) * coef
        if g.dtype == F16:
            y = y[y.abs() < torch.finfo(F16).tiny]
        if g.dtype != F32 and not torch.equal((y * (1 - 1e-6)).to(g.dtype), (y * (1 + 1e-6)).to(g.dtype)):
            return True
    return False


def fresh(seed):
    """A random list (possibly empty; 0-dim and empty tensors; float32, fp16, bf16, possibly mixed) of gradients
    of a random magnitude, sometimes one huge entry, norm_type 1, 2, 3, 1.5 or inf, and max_norm below or above
    the total norm."""
    rng = random.Random(seed)
    while True:
        gen = torch.Generator().manual_seed(rng.randrange(2**62))
        norm_type = rng.choice([2.0, 2.0, 1.0, INF, 3.0, 1.5])
        dtypes = [rng.choice([F32, F16, BF16])] if rng.random() < 0.7 else [F32, F16, BF16]
        low = -4.0 if norm_type in (3.0, 1.5) else -7.0  # |g|^p stays a normal float32
        scale = 10 ** rng.uniform(low, 3.0)
        grads = []
        for _ in range(rng.choice([0, 1, rng.randint(1, 6), rng.randint(1, 6)])):
            shape = [rng.choice([0, 1, rng.randint(1, 12)]) if rng.random() < 0.1
                     else rng.randint(1, 12) for _ in range(rng.choice([0, 1, 1, 2, 2, 3]))]
            grads.append((torch.randn(shape, generator=gen) * scale).to(rng.choice(dtypes)))
        if grads and rng.random() < 0.15 and norm_type in (1.0, 2.0, INF):
            at = rng.randrange(len(grads))  # a diverging run: one huge float32 entry
            if grads[at].numel():
                grads[at] = grads[at].to(F32)
                grads[at].view(-1)[rng.randrange(grads[at].numel())] = -rng.choice([1e6, 1e10, 1e15])
        total = float(torch.linalg.vector_norm(torch.cat([g.float().reshape(-1) for g in grads] + [torch.zeros(1)]),
                                               norm_type))
        max_norm = rng.choice([1.0, float(f"{max(total, 1e-9) * 10 ** rng.uniform(-2.0, 0.5):.3g}")])
        args = (grads, max_norm, norm_type) if norm_type != 2.0 or rng.random() < 0.5 else (grads, max_norm)
        if not grads or not _near_a_tie(*args[:2], norm_type):
            return {"args": args}
