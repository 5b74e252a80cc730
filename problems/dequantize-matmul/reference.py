import torch


def dequant_matmul(x: torch.Tensor, w_q: torch.Tensor, scales: torch.Tensor, group_size=None) -> torch.Tensor:
    K = w_q.shape[0]
    G = K if group_size is None else group_size
    # Row k of W belongs to group k // G; the last group may be shorter than G.
    group_of_row = torch.arange(K) // G
    w = w_q.to(torch.float32) * scales[group_of_row]          # [K, N] fp32
    return (x.to(torch.float32) @ w).to(x.dtype)
