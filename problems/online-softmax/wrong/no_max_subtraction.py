# expect: wrong_answer
# why: accumulates exp(z) without subtracting a running max: fine for small logits, but at a
#      +1000 shift exp overflows to inf and the output is inf / inf = NaN
import torch


def online_softmax_weighted_sum(logits, values, block_size):
    denom = torch.zeros(logits.shape[0], 1, dtype=values.dtype)
    numer = torch.zeros(logits.shape[0], values.shape[1], dtype=values.dtype)
    for s in range(0, logits.shape[1], block_size):
        p = torch.exp(logits[:, s:s + block_size])
        denom = denom + p.sum(dim=1, keepdim=True)
        numer = numer + p @ values[s:s + block_size]
    return numer / torch.where(denom > 0, denom, 1.0)
