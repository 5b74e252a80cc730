import torch


def online_softmax_step(m: torch.Tensor, l: torch.Tensor, o: torch.Tensor, logits_block: torch.Tensor,
                        values_block: torch.Tensor):
    # One block of the online softmax: the state (m, l, o) of the columns seen so far, merged with the block.
    m_new = torch.maximum(m, logits_block.amax(dim=1))
    # A row that has seen only -inf keeps m = -inf: shift it by 0, so that exp(-inf - 0) = 0, not NaN.
    shift = torch.where(torch.isinf(m_new), 0.0, m_new)
    alpha = torch.exp(m - shift)  # the old terms' factor; 0 while nothing has been accumulated (m = -inf)
    p = torch.exp(logits_block - shift[:, None])
    return m_new, l * alpha + p.sum(dim=1), o * alpha[:, None] + p @ values_block
