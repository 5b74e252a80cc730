# expect: wrong_answer
# why: expands the group scales with scales.repeat(G, 1) (which tiles: groups 0, 1, 2, 0, 1, 2,
#      ...) instead of repeating each group's row G times; right only with a single group
import torch


def dequant_matmul(x, w_q, scales, group_size=None):
    K = w_q.shape[0]
    G = K if group_size is None else group_size
    w = w_q.to(torch.float32) * scales.repeat(G, 1)[:K]
    return (x.to(torch.float32) @ w).to(x.dtype)
