# expect: wrong_answer
# why: computes in float32 as asked but forgets to cast the result back to x's dtype; the next
#      layer receives float32 activations twice as large in memory
import torch


def dequant_matmul(x, w_q, scales, group_size=None):
    K = w_q.shape[0]
    G = K if group_size is None else group_size
    w = w_q.to(torch.float32) * scales[torch.arange(K) // G]
    return x.to(torch.float32) @ w
