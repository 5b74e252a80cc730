# expect: wrong_answer
# why: the naive all-reduce: every rank sends its whole tensor to each of the other W - 1 ranks
#      and sums what it receives. The results are right, but each rank sends (W - 1) * n elements
#      instead of about 2 * (W - 1) / W * n, which is the whole point of the ring
import torch


def ring_all_reduce(tensors):
    W = len(tensors)
    total = tensors[0].clone()
    for t in tensors[1:]:
        total = total + t
    return [total.clone() for _ in range(W)], [(W - 1) * t.numel() for t in tensors]
