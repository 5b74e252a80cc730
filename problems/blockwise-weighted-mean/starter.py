import torch


def blockwise_weighted_mean(values: torch.Tensor, weights: torch.Tensor, block_size: int):
    """Weighted mean of values, computed block by block and merged.

    values, weights: 1-D tensors of the same length N and dtype; weights >= 0, sum > 0.
    Blocks are values[k * block_size : (k + 1) * block_size]; the last one may be shorter.

    Returns the tuple (block_means, block_weights, mean):
      block_means[k]   = sum(w * v) / sum(w) over block k (0 for a block whose weights sum to 0)
      block_weights[k] = sum(w) over block k
      mean             = 0-d tensor: the weighted mean of all values, i.e. the block means
                         merged with their block weights as the weights
    All three have values' dtype. values and weights must not be modified.
    """
    raise NotImplementedError
