# expect: wrong_answer
# why: adds the block means together (the lab's "wrong_sum"), as if each were a partial sum
import torch


def blockwise_weighted_mean(values, weights, block_size):
    means, sums = [], []
    for start in range(0, values.numel(), block_size):
        v, w = values[start:start + block_size], weights[start:start + block_size]
        total = w.sum()
        sums.append(total)
        means.append((w * v).sum() / total if total > 0 else torch.zeros((), dtype=values.dtype))
    block_means = torch.stack(means)
    return block_means, torch.stack(sums), block_means.sum()
