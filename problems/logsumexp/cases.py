import torch

INF = float("inf")
F32, F16, BF16, F64 = torch.float32, torch.float16, torch.bfloat16, torch.float64


def _random(seed, shape, dtype=F32, scale=1.0, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=F64) * scale + shift).to(dtype)


def _cancelling():
    # Row r holds 8 copies of -log(8) + d_r: the result, d_r, is m + log(8) with m = -log(8) + d_r,
    # a sum that cancels. In float16, log(8) alone is off by half a step (1e-3), which is larger than
    # d_r; a computation in float32 or float64 rounds once, at the end.
    d = torch.tensor([[1e-3], [-2e-3], [5e-4], [0.0]], dtype=F64)
    return ((d - torch.log(torch.tensor(8.0, dtype=F64))).expand(4, 8).to(F16), 1)


def cases():
    return [
        {"name": "example: [1, 2, 3] -> 3.4076059644", "args": (torch.tensor([1.0, 2.0, 3.0]), 0)},
        {"name": "masked entries (-inf) and a fully masked row (-> -inf)",
         "args": (torch.tensor([[0.5, -INF, 1.5, -INF], [-INF, -INF, -INF, -INF], [-INF, 2.0, -INF, -INF]]), -1)},
        {"name": "+inf entries (-> +inf), also next to -inf",
         "args": (torch.tensor([[INF, 1.0, -INF], [INF, INF, 0.0], [3.0, -2.0, 1.0]]), 1)},
        {"name": "values ~ +1000 and ~ -1000 (exp overflows / underflows)",
         "args": (torch.tensor([[1000.0, 1000.0, 999.0], [-1000.0, -1000.0, -1001.0]]), 1)},
        {"name": "dim = 0 of a [5, 7] matrix", "args": (_random(1, (5, 7), scale=3.0), 0)},
        {"name": "keepdim = True, dim 1 of [2, 6, 3]", "args": (_random(2, (2, 6, 3)), 1, True)},
        {"name": "keepdim = True, dim -2 of [4, 1, 5]", "args": (_random(3, (4, 1, 5), scale=10.0), -2, True)},
        {"name": "a single element along dim: [4, 1] over dim 1", "args": (_random(4, (4, 1)), 1)},
        {"name": "[1, 1, 1] over dim 0 (keep the other size-1 dims)", "args": (torch.tensor([[[2.5]]]), 0)},
        {"name": "empty slice: [3, 0] over dim 1 (-> -inf)", "args": (torch.zeros(3, 0), 1)},
        {"name": "fp16 rows of 8 x (d - log 8): results near 0, where m + log(sum) cancels", "args": _cancelling()},
        {"name": "fp16 logits ~ 20 (exp(20) > 65504)", "args": (_random(5, (3, 50), F16, scale=2.0, shift=20.0), -1)},
        {"name": "bf16 vocabulary logits [4, 32000]", "args": (_random(6, (4, 32000), BF16, scale=4.0), -1)},
    ]
