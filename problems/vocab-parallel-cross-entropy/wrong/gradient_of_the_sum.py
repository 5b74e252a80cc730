# expect: wrong_answer
# why: returns the gradient of the summed loss (softmax - one_hot) instead of the mean's: the loss
#      is averaged over the kept rows, and so is its gradient
import math

import torch


def vocab_parallel_cross_entropy(logits, target, tp, pad_to=1, ignore_index=-100):
    N, V = logits.shape
    multiple = pad_to * tp
    padded = (V + multiple - 1) // multiple * multiple
    per_rank = padded // tp
    ranges = [(min(r * per_rank, V), min((r + 1) * per_rank, V)) for r in range(tp)]
    shards = [logits[:, a:b].float() for a, b in ranges]
    keep = target != ignore_index
    # max all-reduce
    local_max = []
    for s in shards:
        local_max.append(s.max(dim=1).values if s.shape[1] > 0 else torch.full((N,), -math.inf))
    local_max = torch.stack(local_max)
    gmax = local_max.max(dim=0).values
    shifted = [s - gmax.unsqueeze(1) for s in shards]
    local_sum = torch.stack([torch.exp(s).sum(dim=1) for s in shifted])
    total = local_sum.sum(dim=0)
    local_pred = torch.zeros(tp, N)
    for r, (a, b) in enumerate(ranges):
        for i in range(N):
            t = int(target[i])
            if keep[i] and a <= t < b:
                local_pred[r, i] = shifted[r][i, t - a]
    per_token = torch.log(total) - local_pred.sum(dim=0)
    per_token = per_token * keep
    n = int(keep.sum())
    mean = per_token.sum() / n if n else torch.tensor(float("nan"))
    grads = []
    for r, (a, b) in enumerate(ranges):
        g = torch.exp(shifted[r]) / total.unsqueeze(1)
        for i in range(N):
            t = int(target[i])
            if keep[i] and a <= t < b:
                g[i, t - a] -= 1
        g[~keep] = 0
        grads.append(g)
    return local_max, local_sum, local_pred, per_token, mean, grads
