import torch


def ring_all_reduce(tensors: list):
    # A literal simulation: each rank's buffer is its own copy of its tensor, split as
    # torch.tensor_split(x, W) splits it; every step, every rank sends one chunk to rank r + 1.
    # Each step's messages are taken before any of them is applied, and logged as sent.
    W = len(tensors)
    bufs = [list(t.clone().tensor_split(W)) for t in tensors]
    log = []
    # Reduce-scatter: at step s rank r sends chunk (r - s) mod W, and the receiver adds it to its
    # own copy. After W - 1 steps rank r holds the full sum of chunk (r + 1) mod W.
    for s in range(W - 1):
        chunks = [(r - s) % W for r in range(W)]
        sent = [bufs[r][c].clone() for r, c in enumerate(chunks)]
        for r, (c, data) in enumerate(zip(chunks, sent, strict=True)):
            bufs[(r + 1) % W][c] = bufs[(r + 1) % W][c] + data
        log.append(sent)
    # All-gather: at step s rank r sends chunk (r + 1 - s) mod W, which it holds fully reduced,
    # and the receiver overwrites its copy.
    for s in range(W - 1):
        chunks = [(r + 1 - s) % W for r in range(W)]
        sent = [bufs[r][c].clone() for r, c in enumerate(chunks)]
        for r, (c, data) in enumerate(zip(chunks, sent, strict=True)):
            bufs[(r + 1) % W][c] = data
        log.append(sent)
    return [torch.cat(b) for b in bufs], log
