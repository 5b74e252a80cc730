# expect: wrong_answer
# why: computes the loss and its gradient on the whole logits at once (a logsumexp over every
#      column, as one GPU would) and splits only the gradient. For the messages it reports what
#      every rank holds after each all-reduce, not what it sends into it: the global max, the whole
#      sum, the target's logit on every rank. No rank of a vocab-parallel layer ever sees those
#      inputs: a rank contributes only its own shard's max and partial sums
import torch


def vocab_parallel_cross_entropy(logits, target, tp, pad_to=1, ignore_index=-100):
    n, vocab = logits.shape
    z = logits.float()
    per_rank = -(-vocab // (pad_to * tp)) * pad_to
    bounds = [(min(r * per_rank, vocab), min((r + 1) * per_rank, vocab)) for r in range(tp)]
    valid = target != ignore_index
    top = z.amax(dim=1)
    total = torch.exp(z - top[:, None]).sum(dim=1)
    picked = torch.where(valid, z.gather(1, torch.where(valid, target, 0)[:, None])[:, 0] - top, 0.0)
    loss = torch.where(valid, torch.log(total) - picked, 0.0)
    count = valid.sum()
    grad = torch.exp(z - top[:, None]) / total[:, None]
    rows = torch.arange(n)[valid]
    grad[rows, target[rows]] -= 1.0
    grad = torch.where(valid[:, None], grad / count, 0.0)
    return (top.expand(tp, n).clone(), total.expand(tp, n).clone(), picked.expand(tp, n).clone(),
            loss, loss.sum() / count, [grad[:, a:b] for a, b in bounds])
