# expect: wrong_answer
# why: shifts by the running max even while it is still -inf: a row whose first block is fully
#      masked computes exp(-inf - (-inf)) = exp(NaN), and the NaN never leaves the accumulators
#      (a masked block in the middle of a row is harmless, which is why the lab's row passes)
import torch


def online_softmax_weighted_sum(logits, values, block_size):
    rows = logits.shape[0]
    m = torch.full((rows, 1), float("-inf"), dtype=logits.dtype)
    denom = torch.zeros(rows, 1, dtype=values.dtype)
    numer = torch.zeros(rows, values.shape[1], dtype=values.dtype)
    for s in range(0, logits.shape[1], block_size):
        z = logits[:, s:s + block_size]
        new_m = torch.maximum(m, z.amax(dim=1, keepdim=True))
        alpha = torch.exp(m - new_m)
        p = torch.exp(z - new_m)
        denom = denom * alpha + p.sum(dim=1, keepdim=True)
        numer = numer * alpha + p @ values[s:s + block_size]
        m = new_m
    return numer / denom
