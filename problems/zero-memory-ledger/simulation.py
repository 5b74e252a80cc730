"""A second reference: the ledger of one GPU, built rank by rank. Each piece of state (16-bit weights
and gradients, fp32 master weights and Adam moments, sized by torch's own dtypes) is either kept
whole on every GPU or split over the k GPUs by index range, as the scheme says; the GPUs' holdings
are added up and averaged, which is what a ledger of unrounded shards reports."""
from fractions import Fraction

import torch

GB = 10 ** 9
STATE = [("weight", torch.bfloat16), ("gradient", torch.bfloat16), ("master", torch.float32),
         ("m", torch.float32), ("v", torch.float32)]
SHARDED = {"DDP": set(), "ZeRO-1": {"master", "m", "v"}, "ZeRO-2": {"gradient", "master", "m", "v"},
           "ZeRO-3": {"weight", "gradient", "master", "m", "v"}}


def _shard(num_params, rank, k):
    """Rank `rank`'s elements of a tensor of `num_params` split into k index ranges (as fractions: unrounded)."""
    return Fraction(num_params * (rank + 1), k) - Fraction(num_params * rank, k)


def zero_memory_per_gpu(num_params, num_gpus):
    ledger = {}
    for scheme, sharded in SHARDED.items():
        total = Fraction(0)
        for rank in range(min(num_gpus, 4)):  # every rank holds the same: four of them show it
            for name, dtype in STATE:
                size = torch.empty((), dtype=dtype).element_size()
                elements = _shard(num_params, rank, num_gpus) if name in sharded else num_params
                total += elements * size
        ledger[scheme] = float(total / min(num_gpus, 4) / GB)
    return ledger
