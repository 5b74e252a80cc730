# expect: wrong_answer
# why: exponentiates the raw logits; on the rows shifted by +1000, exp overflows to inf and
#      inf / inf gives NaN
import torch


def softmax_rows(x):
    e = x.exp()
    return e / e.sum(dim=-1, keepdim=True)
