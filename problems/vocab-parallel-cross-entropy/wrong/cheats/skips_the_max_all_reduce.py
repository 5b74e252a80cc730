# expect: wrong_answer
# why: saves the first all-reduce: each rank shifts its shard by its own max and the ranks' sums are
#      added as if they were on one scale. exp(z - m_r) sums measured against different maxima
#      cannot be added without rescaling each by exp(m_r - m); with the global max there is one scale
import torch


def vocab_parallel_cross_entropy(logits, target, tp, pad_to=1, ignore_index=-100):
    n, vocab = logits.shape
    z = logits.float()
    per_rank = -(-vocab // (pad_to * tp)) * pad_to
    bounds = [(min(r * per_rank, vocab), min((r + 1) * per_rank, vocab)) for r in range(tp)]
    shards = [z[:, a:b] for a, b in bounds]
    max_sent = torch.stack([s.amax(dim=1) if s.shape[1] else torch.full((n,), float("-inf")) for s in shards])
    local = [torch.where(torch.isfinite(m), m, 0.0) for m in max_sent]
    sum_exp_sent = torch.stack([torch.exp(s - m[:, None]).sum(dim=1) for s, m in zip(shards, local)])
    valid = target != ignore_index
    target_sent = torch.zeros(tp, n)
    for r, (a, b) in enumerate(bounds):
        mine = valid & (target >= a) & (target < b)
        target_sent[r, mine] = z[mine, target[mine]] - local[r][mine]
    sum_exp = sum_exp_sent.sum(dim=0)
    loss = torch.where(valid, torch.log(sum_exp) - target_sent.sum(dim=0), 0.0)
    count = valid.sum()
    grads = []
    for (a, b), s, m in zip(bounds, shards, local):
        g = torch.exp(s - m[:, None]) / sum_exp[:, None]
        rows = torch.arange(n)[valid & (target >= a) & (target < b)]
        g[rows, target[rows] - a] -= 1.0
        grads.append(torch.where(valid[:, None], g / count, 0.0))
    return max_sent, sum_exp_sent, target_sent, loss, loss.sum() / count, grads
