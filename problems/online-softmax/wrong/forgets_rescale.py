# expect: wrong_answer
# why: moves the max but does not rescale the old denominator and numerator by exp(m_old - m_new), so the
#      columns seen before keep weights measured against a stale max (the lab's last block gives l = 2.5, not 1.75)
import torch


def online_softmax_step(m, l, o, logits_block, values_block):
    m_new = torch.maximum(m, logits_block.amax(dim=1))
    shift = torch.where(torch.isinf(m_new), 0.0, m_new)
    p = torch.exp(logits_block - shift[:, None])
    return m_new, l + p.sum(dim=1), o + p @ values_block
