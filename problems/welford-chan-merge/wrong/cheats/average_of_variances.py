# expect: wrong_answer
# why: skips the merge: combines two states the way unsynchronized per-GPU batch statistics get
#      combined, averaging their means and their variances. That ignores how many values stand
#      behind each side and how far apart their means are; only equal counts with equal means
#      come out right
import torch


def _average(a, b):
    (na, ma, qa), (nb, mb, qb) = a, b
    if not na or not nb:
        return a if na else b
    n = na + nb
    var = (qa / na + qb / nb) / 2  # population variances, averaged
    return (n, (ma + mb) / 2, var * n)


def _chunk(x):
    if x.numel() == 0:
        return (0.0, 0.0, 0.0)
    mean = float(x.mean())
    return (float(x.numel()), mean, float(((x - mean) ** 2).sum()))


def merged_running_stats(states, chunks, correction=1):
    level = [_average(tuple(s), _chunk(c)) for s, c in zip(states.tolist(), chunks, strict=True)]
    tree = [torch.tensor(level, dtype=torch.float64).reshape(-1, 3)]
    while len(level) > 1:
        level = [_average(*level[i:i + 2]) if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
        tree.append(torch.tensor(level, dtype=torch.float64).reshape(-1, 3))
    n, mean, m2 = level[0]
    return tree, mean, (m2 / (n - correction) if n > correction else float("nan"))
