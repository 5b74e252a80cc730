# expect: wrong_answer
# why: stops after the reduce-scatter phase: each rank holds the full sum of only one chunk
#      ((r + 1) % W), the other chunks are partial sums; the all-gather phase that circulates the
#      reduced chunks is missing (and so is half of the log)
import torch


def ring_all_reduce(tensors):
    W = len(tensors)
    bufs = [list(t.clone().tensor_split(W)) for t in tensors]
    log = []
    for s in range(W - 1):
        sent = [bufs[r][(r - s) % W].clone() for r in range(W)]
        for r in range(W):
            c = (r - s) % W
            bufs[(r + 1) % W][c] = bufs[(r + 1) % W][c] + sent[r]
        log.append(sent)
    return [torch.cat(b) for b in bufs], log
