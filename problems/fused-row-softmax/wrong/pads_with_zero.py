# expect: wrong_answer
# why: the classic Triton masking bug, written in torch: the row is padded to a power of two with
#      0 instead of -inf, so every padded lane adds exp(0 - max) to the denominator
import torch
import torch.nn.functional as F


def softmax_rows(x):
    columns = x.shape[-1]
    block = 1 << (columns - 1).bit_length()
    padded = F.pad(x, (0, block - columns), value=0.0)
    e = (padded - padded.amax(dim=-1, keepdim=True)).exp()
    return (e / e.sum(dim=-1, keepdim=True))[:, :columns]
