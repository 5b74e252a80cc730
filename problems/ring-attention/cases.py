import torch


def _qkv(seed, heads, seq, dim, dtype=torch.float32, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(heads, seq, dim, generator=g, dtype=torch.float64) * scale
    k = torch.randn(heads, seq, dim, generator=g, dtype=torch.float64)
    v = torch.randn(heads, seq, dim, generator=g, dtype=torch.float64)
    return tuple(t.to(dtype) for t in (q, k, v))


def _example():
    q = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]])
    k = torch.tensor([[[1.0, 0.0], [0.0, 2.0], [-1.0, 0.0], [1.0, 1.0]]])
    v = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [-1.0, 3.0]]])
    return q, k, v


def cases():
    return [
        {"name": "example: 1 head, 4 tokens over 2 ranks", "args": (*_example(), 2)},
        {"name": "one rank: nothing moves", "args": (*_qkv(1, 2, 7, 4), 1)},
        {"name": "causal, 16 tokens over 4 ranks: later chunks fully masked", "args": (*_qkv(2, 2, 16, 8), 4, True)},
        {"name": "causal, 10 tokens over 4 ranks (chunks 3, 3, 2, 2), softmax_scale 0.5",
         "args": (*_qkv(3, 3, 10, 4), 4, True), "kwargs": {"softmax_scale": 0.5}},
        {"name": "3 tokens over 5 ranks: two ranks hold nothing", "args": (*_qkv(4, 2, 3, 4), 5)},
        {"name": "causal, 4 heads, 64 tokens over 8 ranks", "args": (*_qkv(5, 4, 64, 16), 8, True)},
        {"name": "scores near 1000: partial results merged without overflow", "args": (*_qkv(6, 2, 24, 8, scale=300.0), 3)},
        {"name": "float64, causal, 50 tokens over 6 ranks, softmax_scale 0.05",
         "args": (*_qkv(7, 2, 50, 8, dtype=torch.float64), 6, True), "kwargs": {"softmax_scale": 0.05}},
    ]
