# expect: wrong_answer
# why: merges the means of two ranks as their plain average: a rank with 1 value and a rank with
#      4000 do not count the same; weight each by its count
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
        for i in range(0, len(level), 2):
            if i + 1 == len(level):
                nxt.append(level[i]); continue
            (na, ma, qa), (nb, mb, qb) = level[i], level[i + 1]
            n = na + nb
            if n == 0:
                nxt.append((0.0, 0.0, 0.0)); continue
            d = mb - ma
            nxt.append((n, (ma + mb) / 2, qa + qb + d * d * na * nb / n))
        level = nxt
        tree.append(torch.tensor(level, dtype=torch.float64))
    n, mean, m2 = level[0]
    return history, tree, mean, (m2 / (n - correction) if n > correction else math.nan)
