# expect: wrong_answer
# why: subtracts the shift from the block in place to save memory, but the block belongs to the caller (in a
#      loop over a row it is a view, logits[:, s:e]), so the caller's logits are overwritten; the state is right
import torch


def online_softmax_step(m, l, o, logits_block, values_block):
    m_new = torch.maximum(m, logits_block.amax(dim=1))
    shift = torch.where(torch.isinf(m_new), 0.0, m_new)
    alpha = torch.exp(m - shift)
    p = logits_block.sub_(shift[:, None]).exp_()
    return m_new, l * alpha + p.sum(dim=1), o * alpha[:, None] + p @ values_block
