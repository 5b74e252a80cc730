import torch


def online_softmax_weighted_sum(logits: torch.Tensor, values: torch.Tensor,
                                block_size: int) -> torch.Tensor:
    """softmax(logits, dim=1) @ values, computed in one pass over blocks of columns.

    logits: [R, N]; -inf marks a masked position (never +inf or NaN)
    values: [N, D], same dtype as logits
    block_size: columns per block; the last block may be shorter

    Visit the blocks logits[:, k*block_size:(k+1)*block_size] in order, keeping per row a running
    max m, a running denominator sum(exp(z - m)) and a running numerator sum(exp(z - m) * v);
    when m grows, rescale both by exp(m_old - m_new). A block may be fully masked, and so may a
    whole row: such a row returns zeros.

    Returns [R, D] in values' dtype. Must stay finite when every logit is shifted by +-1000.
    logits and values must not be modified.
    """
    raise NotImplementedError
