# expect: wrong_answer
# why: normalises over dim 0 (down each column) instead of along each row
import torch


def softmax_rows(x):
    return torch.softmax(x, dim=0)
