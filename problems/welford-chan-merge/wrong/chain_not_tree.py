# expect: wrong_answer
# why: merges the ranks one after another (0 with 1, the result with 2, ...) instead of in pairs
#      per level: the final result is the same, but the statement's tree has log2(P) levels whose
#      partial results are what each rank holds when its neighbour's state arrives
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
    while len(level) > 1:  # the first two, then the result with the next: one rank at a time
        level = [_merge(level[0], level[1])] + level[2:]
        tree.append(torch.tensor(level, dtype=torch.float64).reshape(-1, 3))
    n, mean, m2 = level[0]
    return tree, mean, (m2 / (n - correction) if n > correction else math.nan)
