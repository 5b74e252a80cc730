# expect: wrong_answer
# why: counts every message as ceil(n / W) elements, so each rank reports 2 * (W - 1) * ceil(n / W):
#      right whenever W divides n, too much otherwise (tensor_split's last chunks are one element
#      shorter, and some may be empty)
import math

import torch


def ring_all_reduce(tensors):
    W = len(tensors)
    n = tensors[0].numel()
    bufs = [list(t.clone().tensor_split(W)) for t in tensors]
    for s in range(W - 1):
        msgs = [((r + 1) % W, (r - s) % W, bufs[r][(r - s) % W].clone()) for r in range(W)]
        for dst, c, data in msgs:
            bufs[dst][c] = bufs[dst][c] + data
    for s in range(W - 1):
        msgs = [((r + 1) % W, (r + 1 - s) % W, bufs[r][(r + 1 - s) % W].clone()) for r in range(W)]
        for dst, c, data in msgs:
            bufs[dst][c] = data
    return [torch.cat(b) for b in bufs], [2 * (W - 1) * math.ceil(n / W)] * W
