# expect: wrong_answer
# why: always returns the sample variance M2 / (n - 1), whatever correction asks for
import math

import torch


def _merge(a, b):
    (na, ma, qa), (nb, mb, qb) = a, b
    n = na + nb
    if n == 0:
        return (0.0, 0.0, 0.0)
    d = mb - ma
    return (n, ma + d * nb / n, qa + qb + d * d * na * nb / n)


def _fold(state, chunk):
    n, mean, m2 = state
    for x in chunk.tolist():  # Welford, one value at a time
        n += 1
        d = x - mean
        mean += d / n
        m2 += d * (x - mean)
    return (float(n), mean, m2)


def merged_running_stats(states, chunks, correction=1):
    level = [_fold(tuple(s), c) for s, c in zip(states.tolist(), chunks, strict=True)]
    tree = [torch.tensor(level, dtype=torch.float64).reshape(-1, 3)]
    while len(level) > 1:
        level = [_merge(*level[i:i + 2]) if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
        tree.append(torch.tensor(level, dtype=torch.float64).reshape(-1, 3))
    n, mean, m2 = level[0]
    return tree, mean, (m2 / (n - 1) if n > 1 else math.nan)
