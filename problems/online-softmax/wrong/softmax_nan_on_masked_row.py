# expect: wrong_answer
# why: uses torch.softmax on the whole row: right wherever a row has a valid logit, but a fully
#      masked row (the lab's None) comes out as NaN instead of the documented zeros
import torch


def online_softmax_weighted_sum(logits, values, block_size):
    return torch.softmax(logits, dim=1) @ values
