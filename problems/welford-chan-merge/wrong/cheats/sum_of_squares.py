# expect: wrong_answer
# why: skips the stable update: keeps the count, the sum and the sum of squares (the textbook
#      one-pass formula, trivially mergeable by addition) and computes M2 = sum(x^2) - n mean^2 at
#      the end. Around 1e9 the two terms are 1e18 times n and agree in all but the last digits:
#      float64's 16 digits cancel to noise, and M2 comes out wrong (even negative)
import torch


def _state(n, s, q):
    return (float(n), s / n, q - s * s / n) if n else (0.0, 0.0, 0.0)


def merged_running_stats(shards, correction=1):
    history, sums = [], []
    for chunks in shards:
        n, s, q, rows = 0, 0.0, 0.0, []
        for chunk in chunks:
            n, s, q = n + chunk.numel(), s + float(chunk.sum()), q + float((chunk * chunk).sum())
            rows.append(_state(n, s, q))
        history.append(torch.tensor(rows, dtype=torch.float64).reshape(-1, 3))
        sums.append((n, s, q))
    tree = [torch.tensor([_state(*t) for t in sums], dtype=torch.float64).reshape(-1, 3)]
    while len(sums) > 1:
        sums = [tuple(a + b for a, b in zip(*sums[i:i + 2])) if i + 1 < len(sums) else sums[i]
                for i in range(0, len(sums), 2)]
        tree.append(torch.tensor([_state(*t) for t in sums], dtype=torch.float64).reshape(-1, 3))
    n, mean, m2 = _state(*sums[0])
    return history, tree, mean, (m2 / (n - correction) if n > correction else float("nan"))
