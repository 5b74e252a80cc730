# expect: wrong_answer
# why: the naive all-reduce: at each of W - 1 steps every rank sends its whole tensor around the ring and each
#      rank adds what it receives. The results are right, but each rank sends (W - 1) * n elements instead of
#      about 2 * (W - 1) / W * n, which is the whole point of the ring: the message log shows it
import torch


def ring_all_reduce(tensors):
    W = len(tensors)
    total = tensors[0].clone()
    for t in tensors[1:]:
        total = total + t
    log = [[tensors[(r - s) % W].clone() for r in range(W)] for s in range(W - 1)]
    return [total.clone() for _ in range(W)], log
