# expect: wrong_answer
# why: multiplies values by weights in place to save a temporary; every output is right, but the
#      caller's values tensor comes back holding the products
import torch


def blockwise_weighted_mean(values, weights, block_size):
    products = values.mul_(weights)
    means, sums = [], []
    for start in range(0, products.numel(), block_size):
        p, w = products[start:start + block_size], weights[start:start + block_size]
        total = w.sum()
        sums.append(total)
        means.append(p.sum() / total if total > 0 else torch.zeros((), dtype=products.dtype))
    block_weights = torch.stack(sums)
    return torch.stack(means), block_weights, products.sum() / block_weights.sum()
