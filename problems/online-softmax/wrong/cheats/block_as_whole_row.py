# expect: wrong_answer
# why: the dense softmax that used to be accepted (a softmax over the whole row at once) has no whole row here:
#      the step sees the state and one block. Treating the block as the row, and dropping the state, is right
#      only from the empty state
import torch


def online_softmax_step(m, l, o, logits_block, values_block):
    m_new = logits_block.amax(dim=1)
    shift = torch.where(torch.isinf(m_new), 0.0, m_new)
    p = torch.exp(logits_block - shift[:, None])
    return m_new, p.sum(dim=1), p @ values_block
