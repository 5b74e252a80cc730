import torch


def dequant_matmul(x: torch.Tensor, w_q: torch.Tensor, scales: torch.Tensor, group_size=None) -> torch.Tensor:
    """y = x @ dequant(w_q), computed in float32, returned in x's dtype.

    x: [..., K] float16 or bfloat16 activations
    w_q: [K, N] int8 weights
    scales: [num_groups, N] float32, num_groups = ceil(K / G); G = group_size, or K when None
            (one scale per output channel)
    dequant(w_q)[k, n] = w_q[k, n] * scales[k // G, n]; when G does not divide K the last
    group is shorter (K - (num_groups - 1) * G rows).

    Returns [..., N] in x's dtype. No input may be modified.
    """
    raise NotImplementedError
