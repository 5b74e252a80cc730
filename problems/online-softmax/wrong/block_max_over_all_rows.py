# expect: wrong_answer
# why: takes the block's max over every row at once (`amax()` without a dim): a single-row block is right, but
#      with several rows each row's state is measured against another row's max
import torch


def online_softmax_step(m, l, o, logits_block, values_block):
    m_new = torch.maximum(m, logits_block.amax())
    shift = torch.where(torch.isinf(m_new), 0.0, m_new)
    alpha = torch.exp(m - shift)
    p = torch.exp(logits_block - shift[:, None])
    return m_new, l * alpha + p.sum(dim=1), o * alpha[:, None] + p @ values_block
