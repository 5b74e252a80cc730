# expect: wrong_answer
# why: divides every block by its weight sum, so a block whose weights are all 0 gets 0/0 = NaN,
#      and the merge (sum of mean * weight) turns NaN * 0 into NaN for the whole result
import torch


def blockwise_weighted_mean(values, weights, block_size):
    v = values.split(block_size)
    w = weights.split(block_size)
    block_weights = torch.stack([b.sum() for b in w])
    block_means = torch.stack([(bw * bv).sum() for bv, bw in zip(v, w)]) / block_weights
    mean = (block_means * block_weights).sum() / block_weights.sum()
    return block_means, block_weights, mean
