# expect: wrong_answer
# why: dequantizes the weights into x's dtype and multiplies in half precision; each weight
#      w_q * scale is rounded to bf16's 8 significant bits (up to 2**-9 relative), and over K
#      products the output drifts several bf16 steps from the float32 result
import torch


def dequant_matmul(x, w_q, scales, group_size=None):
    K = w_q.shape[0]
    G = K if group_size is None else group_size
    w = (w_q.to(torch.float32) * scales[torch.arange(K) // G]).to(x.dtype)
    return x @ w
