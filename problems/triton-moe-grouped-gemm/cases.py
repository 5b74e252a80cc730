"""Inputs for triton-moe-grouped-gemm: fp16 tokens sorted by expert, fp16 expert weights [E, N, K] in
nn.Linear's layout, and the int32 offsets [E + 1] of each expert's rows (some experts get no tokens).

Trusted code: the grader calls it for the correctness cases, and the benchmark calls `make_inputs`
with a fresh seed for every timed repetition.
"""

import random

import torch

# (tokens, experts, N, K); the named cases below add the edges a random routing may miss.
CORRECTNESS_SHAPES = [(1, 1, 1, 1), (100, 8, 48, 96), (24, 12, 33, 40)]


def _offsets(counts, device):
    ends = torch.cumsum(torch.as_tensor(counts, device=device), 0)
    return torch.cat([torch.zeros(1, dtype=ends.dtype, device=device), ends]).to(torch.int32)


def _operands(t, e, n, k, gen, device):
    x = torch.randn(t, k, device=device, generator=gen).half()
    weights = torch.randn(e, n, k, device=device, generator=gen).half()  # [experts, out_features, in_features]
    return x, weights


def make_inputs(t, e, n, k, seed=0, device="cpu"):
    """A skewed routing, as a router's is: expert popularity rand ** 2, about a quarter of the experts empty."""
    gen = torch.Generator(device=device).manual_seed(seed)
    x, weights = _operands(t, e, n, k, gen, device)
    popularity = torch.rand(e, device=device, generator=gen) ** 2
    popularity[torch.rand(e, device=device, generator=gen) < 0.25] = 0.0
    popularity[0] += 1e-3  # some expert takes the tokens when every draw came out empty
    chosen = torch.multinomial(popularity, t, replacement=True, generator=gen)
    return (x, weights, _offsets(torch.bincount(chosen, minlength=e), device))


def work(t, e, n, k):
    """FLOPs from the shape alone: every token goes through one expert's N x K weight, 2 FLOPs a term."""
    return 2 * t * n * k


def _routed(counts, n, k, seed):
    x, weights = _operands(sum(counts), len(counts), n, k, torch.Generator().manual_seed(seed), "cpu")
    return (x, weights, _offsets(counts, "cpu"))


def cases():
    shaped = [{"name": f"{t} tokens, {e} experts, N {n}, K {k}, skewed routing (seed {10 + i})",
               "args": make_inputs(t, e, n, k, seed=10 + i)} for i, (t, e, n, k) in enumerate(CORRECTNESS_SHAPES)]
    return shaped + [
        {"name": "tokens per expert 0, 1, 70, 5, 0: the first and last experts empty, boundaries inside tiles",
         "args": _routed([0, 1, 70, 5, 0], 33, 65, 20)},
        {"name": "every token with expert 2 of 4 (three row tiles); N 130: two column tiles",
         "args": _routed([0, 0, 130, 0], 130, 40, 21)},
        {"name": "tokens per expert 64, 64, 0, 1: full tiles, an empty expert, a lone token",
         "args": _routed([64, 64, 0, 1], 20, 33, 22)},
    ]


def fresh(seed):
    """1-130 tokens over 1-12 experts (a skewed routing, some experts empty), N 1-130, K 1-128: edges of no
    tile size, new at every grading."""
    rng = random.Random(seed)
    t, e = rng.randint(1, 130), rng.choice([1, rng.randint(2, 12)])
    n, k = (rng.choice([1, rng.randint(1, hi)]) for hi in (130, 128))
    return {"args": make_inputs(t, e, n, k, seed=seed % 2 ** 32)}
