# expect: wrong_answer
# why: stops after the reduce-scatter phase: each rank holds the full sum of only one chunk
#      ((r + 1) % W), the other chunks are partial sums; the all-gather phase that circulates the
#      reduced chunks is missing (and so is half of the traffic)
import torch


def ring_all_reduce(tensors):
    W = len(tensors)
    bufs = [list(t.clone().tensor_split(W)) for t in tensors]
    sent = [0] * W
    for s in range(W - 1):
        msgs = []
        for r in range(W):
            c = (r - s) % W
            msgs.append(((r + 1) % W, c, bufs[r][c].clone()))
            sent[r] += bufs[r][c].numel()
        for dst, c, data in msgs:
            bufs[dst][c] = bufs[dst][c] + data
    return [torch.cat(b) for b in bufs], sent
