import torch


def blockwise_weighted_mean(values: torch.Tensor, weights: torch.Tensor, block_size: int):
    means, sums = [], []
    for start in range(0, values.numel(), block_size):
        v, w = values[start:start + block_size], weights[start:start + block_size]
        total = w.sum()
        sums.append(total)
        # A block without weight has no mean of its own; 0 is the convention, and its zero
        # weight keeps it out of the merged mean.
        means.append((w * v).sum() / total if total > 0 else torch.zeros((), dtype=values.dtype))
    block_means, block_weights = torch.stack(means), torch.stack(sums)
    mean = (weights * values).sum() / weights.sum()
    return block_means, block_weights, mean
