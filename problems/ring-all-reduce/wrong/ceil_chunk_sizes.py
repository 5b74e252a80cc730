# expect: wrong_answer
# why: splits into chunks of ceil(n / W) elements (as torch.chunk does) instead of tensor_split's: the sums are
#      right and so is every message when W divides n, but otherwise the chunks, and so the messages, differ
#      (n = 10 over 4 ranks gives 3, 3, 3, 1 instead of 3, 3, 2, 2)
import math

import torch


def ring_all_reduce(tensors):
    W = len(tensors)
    size = math.ceil(tensors[0].numel() / W) if W else 0
    bufs = [[t[i * size:(i + 1) * size].clone() for i in range(W)] for t in tensors]
    log = []
    for s in range(W - 1):
        sent = [bufs[r][(r - s) % W].clone() for r in range(W)]
        for r in range(W):
            c = (r - s) % W
            bufs[(r + 1) % W][c] = bufs[(r + 1) % W][c] + sent[r]
        log.append(sent)
    for s in range(W - 1):
        sent = [bufs[r][(r + 1 - s) % W].clone() for r in range(W)]
        for r in range(W):
            bufs[(r + 1) % W][(r + 1 - s) % W] = sent[r]
        log.append(sent)
    return [torch.cat(b) for b in bufs], log
