# expect: wrong_answer
# why: reshapes into N // block_size full blocks, silently dropping the shorter last block
import torch


def blockwise_weighted_mean(values, weights, block_size):
    n = values.numel() // block_size * block_size
    v = values[:n].view(-1, block_size)
    w = weights[:n].view(-1, block_size)
    block_weights = w.sum(dim=1)
    block_means = torch.where(block_weights > 0, (w * v).sum(dim=1) / block_weights, 0.0)
    mean = (block_means * block_weights).sum() / block_weights.sum()
    return block_means, block_weights, mean
