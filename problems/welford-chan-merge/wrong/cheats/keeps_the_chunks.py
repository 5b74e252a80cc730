# expect: wrong_answer
# why: skips the update: keeps every chunk it is given (in module-level storage, across calls) and
#      recomputes the mean and M2 two-pass over all of them, as if the rank could hold its data. The
#      values behind each rank's carried state were never passed, so the statistics cover only the
#      chunks this worker happened to see; the state is the only record of the earlier values
import torch

_seen = {}  # rank -> every chunk it has received so far


def _two_pass(values):
    if values.numel() == 0:
        return (0.0, 0.0, 0.0)
    mean = values.mean()
    return (float(values.numel()), float(mean), float(((values - mean) ** 2).sum()))


def merged_running_stats(states, chunks, correction=1):
    for r, chunk in enumerate(chunks):
        _seen.setdefault(r, []).append(chunk.clone())
    ranks = [torch.cat(_seen[r]) for r in range(len(chunks))]
    level = [_two_pass(values) for values in ranks]
    tree = [torch.tensor(level, dtype=torch.float64).reshape(-1, 3)]
    while len(level) > 1:
        pooled = [torch.cat(ranks[i:i + 2]) for i in range(0, len(ranks), 2)]
        ranks, level = pooled, [_two_pass(values) for values in pooled]
        tree.append(torch.tensor(level, dtype=torch.float64).reshape(-1, 3))
    n, mean, m2 = level[0]
    return tree, mean, (m2 / (n - correction) if n > correction else float("nan"))
