import torch


def vocab_parallel_cross_entropy(logits, target, tp, pad_to=1, ignore_index=-100):
    n, vocab = logits.shape
    z = logits.float()
    # Megatron pads the vocabulary to a multiple of pad_to * tp: every rank holds `per_rank` rows of
    # the output embedding; rows past the real vocabulary hold no token and are left out.
    per_rank = -(-vocab // (pad_to * tp)) * pad_to
    bounds = [(min(r * per_rank, vocab), min((r + 1) * per_rank, vocab)) for r in range(tp)]
    shards = [z[:, start:end] for start, end in bounds]
    # All-reduce 1 (max): each rank sends its shard's max.
    max_sent = torch.stack([s.amax(dim=1) if s.shape[1] else torch.full((n,), float("-inf")) for s in shards])
    global_max = max_sent.amax(dim=0)
    # All-reduce 2 (sum): each rank sends the sum of exp(z - global max) over its shard.
    sum_exp_sent = torch.stack([torch.exp(s - global_max[:, None]).sum(dim=1) for s in shards])
    # All-reduce 3 (sum): the rank that holds a row's target sends its logit minus the global max,
    # the others 0.
    valid = target != ignore_index
    target_sent = torch.zeros(tp, n)
    for r, (start, end) in enumerate(bounds):
        mine = valid & (target >= start) & (target < end)
        target_sent[r, mine] = z[mine, target[mine]] - global_max[mine]
    sum_exp = sum_exp_sent.sum(dim=0)
    loss = torch.where(valid, torch.log(sum_exp) - target_sent.sum(dim=0), 0.0)
    count = valid.sum()
    # d mean / d z = (softmax - one_hot) / count on the valid rows; each rank's part from its own shard.
    grads = []
    for (start, end), s in zip(bounds, shards, strict=True):
        g = torch.exp(s - global_max[:, None]) / sum_exp[:, None]
        rows = torch.arange(n)[valid & (target >= start) & (target < end)]
        g[rows, target[rows] - start] -= 1.0
        grads.append(torch.where(valid[:, None], g / count, 0.0))
    return max_sent, sum_exp_sent, target_sent, loss, loss.sum() / count, grads
