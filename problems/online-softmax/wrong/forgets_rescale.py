# expect: wrong_answer
# why: tracks the running max but does not rescale the old denominator and numerator by
#      exp(m_old - m_new) when the max grows, so earlier blocks keep weights relative to a
#      stale max (the lab's row gives 20 instead of 160/7)
import torch


def online_softmax_weighted_sum(logits, values, block_size):
    rows = logits.shape[0]
    m = torch.full((rows, 1), float("-inf"), dtype=logits.dtype)
    denom = torch.zeros(rows, 1, dtype=values.dtype)
    numer = torch.zeros(rows, values.shape[1], dtype=values.dtype)
    for s in range(0, logits.shape[1], block_size):
        z = logits[:, s:s + block_size]
        m = torch.maximum(m, z.amax(dim=1, keepdim=True))
        p = torch.exp(z - torch.where(torch.isinf(m), 0.0, m))
        denom = denom + p.sum(dim=1, keepdim=True)
        numer = numer + p @ values[s:s + block_size]
    return numer / torch.where(denom > 0, denom, 1.0)
