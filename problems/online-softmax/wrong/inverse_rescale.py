# expect: wrong_answer
# why: rescales by exp(m_new - m_old), the inverse factor: right whenever the max does not move (the factor is 1),
#      so a masked block and a block below the max pass; the old terms grow instead of shrinking when it rises
import torch


def online_softmax_step(m, l, o, logits_block, values_block):
    m_new = torch.maximum(m, logits_block.amax(dim=1))
    shift = torch.where(torch.isinf(m_new), 0.0, m_new)
    alpha = torch.where(torch.isinf(m), 0.0, torch.exp(shift - m))
    p = torch.exp(logits_block - shift[:, None])
    return m_new, l * alpha + p.sum(dim=1), o * alpha[:, None] + p @ values_block
