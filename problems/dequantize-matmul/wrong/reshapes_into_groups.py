# expect: runtime_error
# why: views W as [K // G, G, N] to broadcast one scale row per group: fine while G divides K,
#      but K = 100 with groups of 32 has a 4-row last group and the view fails
import torch


def dequant_matmul(x, w_q, scales, group_size=None):
    K, N = w_q.shape
    G = K if group_size is None else group_size
    w = (w_q.to(torch.float32).view(-1, G, N) * scales[:, None, :]).view(K, N)
    return (x.to(torch.float32) @ w).to(x.dtype)
