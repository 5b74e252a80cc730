import torch


def ring_all_reduce(tensors: list):
    # A literal simulation: each rank's buffer is its own copy of its tensor, split as
    # torch.tensor_split(x, W) splits it; every step, every rank sends one chunk to rank r + 1.
    W = len(tensors)
    bufs = [list(t.clone().tensor_split(W)) for t in tensors]
    sent = [0] * W
    # Reduce-scatter: at step s rank r sends chunk (r - s) mod W, and the receiver adds it to its
    # own copy. After W - 1 steps rank r holds the full sum of chunk (r + 1) mod W.
    for s in range(W - 1):
        messages = []
        for r in range(W):
            c = (r - s) % W
            messages.append(((r + 1) % W, c, bufs[r][c].clone()))
            sent[r] += bufs[r][c].numel()
        for dst, c, data in messages:
            bufs[dst][c] = bufs[dst][c] + data
    # All-gather: at step s rank r sends chunk (r + 1 - s) mod W, which it holds fully reduced,
    # and the receiver overwrites its copy.
    for s in range(W - 1):
        messages = []
        for r in range(W):
            c = (r + 1 - s) % W
            messages.append(((r + 1) % W, c, bufs[r][c].clone()))
            sent[r] += bufs[r][c].numel()
        for dst, c, data in messages:
            bufs[dst][c] = data
    return [torch.cat(b) for b in bufs], sent
