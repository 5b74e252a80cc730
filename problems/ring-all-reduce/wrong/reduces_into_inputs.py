# expect: wrong_answer
# why: uses tensor_split's chunks of the caller's tensors as the ranks' buffers and accumulates
#      with add_ and copy_: tensor_split returns views, so the inputs are overwritten with the sums
#      (the results and the messages are right)
import torch


def ring_all_reduce(tensors):
    W = len(tensors)
    bufs = [t.tensor_split(W) for t in tensors]
    log = []
    for s in range(W - 1):
        sent = [bufs[r][(r - s) % W].clone() for r in range(W)]
        for r in range(W):
            bufs[(r + 1) % W][(r - s) % W].add_(sent[r])
        log.append(sent)
    for s in range(W - 1):
        sent = [bufs[r][(r + 1 - s) % W].clone() for r in range(W)]
        for r in range(W):
            bufs[(r + 1) % W][(r + 1 - s) % W].copy_(sent[r])
        log.append(sent)
    return [t.clone() for t in tensors], log
