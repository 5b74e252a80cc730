# expect: wrong_answer
# why: shifts by the new max even while it is still -inf: a row that has seen only masked logits computes
#      exp(-inf - (-inf)) = exp(NaN), and the NaN stays in its state forever (a masked block after a valid one is
#      harmless, which is why the lab's row passes)
import torch


def online_softmax_step(m, l, o, logits_block, values_block):
    m_new = torch.maximum(m, logits_block.amax(dim=1))
    alpha = torch.exp(m - m_new)
    p = torch.exp(logits_block - m_new[:, None])
    return m_new, l * alpha + p.sum(dim=1), o * alpha[:, None] + p @ values_block
