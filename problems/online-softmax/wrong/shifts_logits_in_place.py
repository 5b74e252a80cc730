# expect: wrong_answer
# why: subtracts the running max from each block with in-place ops to save memory, but the block
#      logits[:, s:e] is a view, so the caller's logits are overwritten; the output is right
import torch


def online_softmax_weighted_sum(logits, values, block_size):
    rows = logits.shape[0]
    m = torch.full((rows, 1), float("-inf"), dtype=logits.dtype)
    denom = torch.zeros(rows, 1, dtype=values.dtype)
    numer = torch.zeros(rows, values.shape[1], dtype=values.dtype)
    for s in range(0, logits.shape[1], block_size):
        z = logits[:, s:s + block_size]
        new_m = torch.maximum(m, z.amax(dim=1, keepdim=True))
        shift = torch.where(torch.isinf(new_m), 0.0, new_m)
        alpha = torch.exp(m - shift)
        p = z.sub_(shift).exp_()
        denom = denom * alpha + p.sum(dim=1, keepdim=True)
        numer = numer * alpha + p @ values[s:s + block_size]
        m = new_m
    return numer / torch.where(denom > 0, denom, 1.0)
