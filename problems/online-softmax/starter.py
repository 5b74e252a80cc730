import torch


def online_softmax_step(m: torch.Tensor, l: torch.Tensor, o: torch.Tensor, logits_block: torch.Tensor,
                        values_block: torch.Tensor):
    """One step of the online softmax: the state of the columns seen so far, merged with the next block.

    m: [R]     the running max of each row's logits so far (-inf while the row has seen no valid logit)
    l: [R]     sum over the columns so far of exp(z - m) (0 while the row has seen no valid logit)
    o: [R, D]  sum over the columns so far of exp(z - m) * v (0 while the row has seen no valid logit)
    logits_block: [R, B]  the next B columns; -inf marks a masked position (never +inf or NaN)
    values_block: [B, D]  their values; every tensor has one dtype

    When the block raises a row's max, what that row accumulated was measured against the old max:
    rescale it by exp(m_old - m_new). While a row's max is still -inf, nothing has been accumulated
    (exp(-inf - (-inf)) is NaN: handle that state explicitly).

    Returns (m, l, o) after the block: new tensors of the same shapes and dtype, finite wherever the row
    has seen a valid logit, even when every logit is shifted by +-1000. No input may be modified.
    """
    raise NotImplementedError
