"""Weights for nf4-double-quant: flattened weight matrices as LLMs have them (normal, about 0.02),
with the edges the format meets: a last block shorter than the others, a block of zeros, outlier
blocks, a number of blocks the second level does not divide, and absmaxes all equal to their mean."""
import torch


def _normal(seed, n, std=0.02):
    return torch.randn(n, generator=torch.Generator().manual_seed(seed)) * std


def _with_outliers(seed, n, blocksize):
    w = _normal(seed, n)
    w[3 * blocksize + 5] = 1.5  # an outlier makes one block's absmax 20 times the others'
    w[11 * blocksize] = -0.9
    return w


def _with_zero_block(seed, n, blocksize):
    w = _normal(seed, n)
    w[2 * blocksize:3 * blocksize] = 0.0
    return w


def _equal_absmax(n, blocksize):
    # Every block holds +-0.5 and smaller values: every absmax is 0.5, so the centred absmaxes are all 0.
    w = _normal(99, n, 0.05).clamp(-0.4, 0.4)
    w[::blocksize] = 0.5
    w[1::2 * blocksize] = -0.5
    return w


def cases():
    return [
        {"name": "example: 128 weights, 2 blocks of 64", "args": (_normal(1, 128),)},
        {"name": "a 128 x 256 weight, blocks of 64 and 256 (the QLoRA defaults)", "args": (_normal(2, 32768),)},
        {"name": "blocksize 32, blocksize2 128", "args": (_normal(3, 8192), 32, 128)},
        {"name": "650 weights: the last block holds 10", "args": (_normal(4, 650),)},
        {"name": "a block of zeros (absmax 0, codes 7)", "args": (_with_zero_block(5, 1024, 64),)},
        {"name": "outlier blocks: absmaxes 1.5 and 0.9 among ones near 0.05", "args": (_with_outliers(6, 4096, 64),)},
        {"name": "300 blocks: second-level blocks of 256 and 44", "args": (_normal(7, 300 * 64),)},
        {"name": "every absmax equal to their mean: the second level holds zeros", "args": (_equal_absmax(2048, 64),)},
        {"name": "blocksize 16, blocksize2 4, weights of scale 1", "args": (_normal(8, 1000, 1.0), 16, 4)},
    ]
