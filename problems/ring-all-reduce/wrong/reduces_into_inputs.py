# expect: wrong_answer
# why: uses tensor_split's chunks of the caller's tensors as the ranks' buffers and accumulates
#      with += and copy_: tensor_split returns views, so the inputs are overwritten with the sums
#      (the results and the counts are right)
import torch


def ring_all_reduce(tensors):
    W = len(tensors)
    bufs = [t.tensor_split(W) for t in tensors]
    sent = [0] * W
    for s in range(W - 1):
        msgs = []
        for r in range(W):
            c = (r - s) % W
            msgs.append(((r + 1) % W, c, bufs[r][c].clone()))
            sent[r] += bufs[r][c].numel()
        for dst, c, data in msgs:
            bufs[dst][c].add_(data)
    for s in range(W - 1):
        msgs = []
        for r in range(W):
            c = (r + 1 - s) % W
            msgs.append(((r + 1) % W, c, bufs[r][c].clone()))
            sent[r] += bufs[r][c].numel()
        for dst, c, data in msgs:
            bufs[dst][c].copy_(data)
    return [t.clone() for t in tensors], sent
