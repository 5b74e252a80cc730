# expect: wrong_answer
# why: merges the block means with a plain average (the lab's "unweighted_mean"); right only
#      when every block carries the same total weight, as with weights [2, 1, 3]
import torch


def blockwise_weighted_mean(values, weights, block_size):
    means, sums = [], []
    for start in range(0, values.numel(), block_size):
        v, w = values[start:start + block_size], weights[start:start + block_size]
        total = w.sum()
        sums.append(total)
        means.append((w * v).sum() / total if total > 0 else torch.zeros((), dtype=values.dtype))
    block_means = torch.stack(means)
    return block_means, torch.stack(sums), block_means.mean()
