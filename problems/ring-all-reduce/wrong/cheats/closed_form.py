# expect: wrong_answer
# why: no simulation: the sum computed at once and the traffic written from the closed form (this used to be
#      accepted, when the kata returned only the send counts). The log is now graded message by message, and a
#      reduce-scatter message carries a partial sum over the ranks it has passed, not the sender's own chunk
import torch


def ring_all_reduce(tensors):
    W = len(tensors)
    total = tensors[0].clone()
    for t in tensors[1:]:
        total = total + t
    own = [t.tensor_split(W) for t in tensors]
    done = total.tensor_split(W)
    reduce_scatter = [[own[r][(r - s) % W].clone() for r in range(W)] for s in range(W - 1)]
    all_gather = [[done[(r + 1 - s) % W].clone() for r in range(W)] for s in range(W - 1)]
    return [total.clone() for _ in range(W)], reduce_scatter + all_gather
