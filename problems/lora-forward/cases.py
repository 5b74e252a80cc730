import torch


def _lab(B):
    # The lab's 2x2 example: W x = [4, 1], A x = [1].
    W = torch.tensor([[1.0, 2.0], [0.0, 1.0]])
    A = torch.tensor([[1.0, -1.0]])
    x = torch.tensor([2.0, 1.0])
    return (x, W, A, torch.tensor(B), 1.0)


def _random(seed, batch, d_in, d_out, r, scale, zero_B=False):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*batch, d_in, generator=g)
    W = torch.randn(d_out, d_in, generator=g) / d_in ** 0.5
    A = torch.randn(r, d_in, generator=g) / d_in ** 0.5
    B = torch.zeros(d_out, r) if zero_B else torch.randn(d_out, r, generator=g)
    return (x, W, A, B, scale)


def cases():
    return [
        {"name": "lab 2x2, rank 1", "args": _lab([[0.5], [1.0]])},
        {"name": "lab 2x2 after updating only B", "args": _lab([[0.6], [1.0]])},
        {"name": "rank 1, scale 2", "args": _random(1, (), 16, 16, 1, 2.0)},
        {"name": "fresh adapter (B = 0) gives the base output", "args": _random(2, (8,), 32, 24, 4, 2.0, zero_B=True)},
        {"name": "batch of 8 inputs, out != in, scale 0.5", "args": _random(3, (8,), 48, 20, 4, 0.5)},
        {"name": "3-D batch [2, 5, 64], rank 8, scale alpha/r = 2", "args": _random(4, (2, 5), 64, 40, 8, 2.0)},
        {"name": "wide layer 256 -> 128, rank 16, scale 0.125", "args": _random(5, (16,), 256, 128, 16, 0.125)},
        # Last, so that a method's other mistakes show first: B @ A here is [2048, 2048] in float32 (16 MiB), twice
        # the worker's 8 MiB, while the two thin matmuls need 32 KiB. (W itself is an input: it does not count.)
        {"name": "a 2048 x 2048 layer, rank 8: B @ A (16 MiB) exceeds the 8 MiB limit",
         "args": _random(6, (4,), 2048, 2048, 8, 0.5)},
    ]


def fresh(seed):
    """A layer of random shape and rank, new at every grading (never shown)."""
    rng = torch.Generator().manual_seed(seed)
    d_in, d_out, rank = (int(torch.randint(lo, hi, (1,), generator=rng)) for lo, hi in ((8, 96), (8, 96), (1, 8)))
    batch = tuple(int(n) for n in torch.randint(1, 5, (int(torch.randint(0, 3, (1,), generator=rng)),), generator=rng))
    return {"args": _random(seed % 100_000, batch, d_in, d_out, rank, float(torch.rand(1, generator=rng)) * 2)}
