import torch

F64 = torch.float64


def _t(values):
    return torch.tensor(values, dtype=F64)


def _shards(seed, sizes, offset=0.0, scale=1.0, rank_offsets=None):
    """sizes[r] lists the chunk lengths rank r sees; values offset + scale * N(0, 1) (plus rank r's offset)."""
    g = torch.Generator().manual_seed(seed)
    shards = []
    for r, chunks in enumerate(sizes):
        shift = offset + (rank_offsets[r] if rank_offsets else 0.0)
        shards.append([shift + scale * torch.randn(n, generator=g, dtype=F64) for n in chunks])
    return shards


def cases():
    return [
        {"name": "example: rank 0 sees [1, 2] then [3], rank 1 sees [4, 5, 6]",
         "args": ([[_t([1.0, 2.0]), _t([3.0])], [_t([4.0, 5.0, 6.0])]],)},
        {"name": "values 1e9 + N(0, 1): sums of squares lose every digit", "args": (_shards(1, [[50, 30], [80], [10, 10, 10], [64]], offset=1e9),)},
        {"name": "empty chunks and a rank with no data", "args": (_shards(2, [[0, 5, 0, 7], [], [3, 0], [0]]),)},
        {"name": "5 ranks: the odd one passes through a tree level", "args": (_shards(3, [[4], [6, 2], [9], [1, 1, 1], [12]]),)},
        {"name": "one rank", "args": (_shards(4, [[10, 20, 30]], offset=-3.0),)},
        {"name": "correction 0 (population variance)", "args": (_shards(5, [[7], [9, 3]], scale=2.5),),
         "kwargs": {"correction": 0}},
        {"name": "two values in all, correction 1: var = M2 / 1", "args": ([[_t([2.0])], [_t([5.0])]],)},
        {"name": "one value in all: the sample variance is undefined (NaN)", "args": ([[_t([]), _t([3.5])], []],)},
        {"name": "no data at all", "args": ([[_t([])], []],)},
        {"name": "ranks with different means (0, 1e6, -1e6) and sizes (1 to 4000)",
         "args": (_shards(6, [[1], [4000], [300, 300], [2]], rank_offsets=[0.0, 1e6, -1e6, 5.0]),)},
        {"name": "8 ranks x 20 chunks of 300 around 1e6, correction 2", "args": (_shards(7, [[300] * 20] * 8, offset=1e6, scale=0.01),),
         "kwargs": {"correction": 2}},
    ]
