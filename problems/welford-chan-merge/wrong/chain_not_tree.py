# expect: wrong_answer
# why: merges the ranks one after another (0 with 1, the result with 2, ...) instead of in pairs
#      per level: the final result is the same, but the statement's tree has log2(P) levels whose
#      partial results are what each rank holds when its neighbour's state arrives
import math

import torch


def merged_running_stats(shards, correction=1):
    history = []
    finals = []
    for chunks in shards:
        n, mean, m2 = 0, 0.0, 0.0
        rows = []
        for c in chunks:
            for x in c.tolist():  # Welford, one value at a time
                n += 1
                d = x - mean
                mean += d / n
                m2 += d * (x - mean)
            rows.append([float(n), mean, m2])
        history.append(torch.tensor(rows, dtype=torch.float64).reshape(-1, 3))
        finals.append((float(n), mean, m2))
    level = finals
    tree = [torch.tensor(level, dtype=torch.float64).reshape(-1, 3)]
    while len(level) > 1:
        nxt = []
        for i in range(0, 1):
            if len(level) == 1:
                nxt.append(level[0]); continue
            (na, ma, qa), (nb, mb, qb) = level[0], level[1]
            n = na + nb
            if n == 0:
                nxt.append((0.0, 0.0, 0.0)); continue
            d = mb - ma
            nxt.append((n, (na * ma + nb * mb) / n, qa + qb + d * d * na * nb / n))
        level = nxt + level[2:]
        tree.append(torch.tensor(level, dtype=torch.float64))
    n, mean, m2 = level[0]
    return history, tree, mean, (m2 / (n - correction) if n > correction else math.nan)
