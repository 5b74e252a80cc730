# expect: wrong_answer
# why: skips the merge: combines two ranks the way unsynchronized per-GPU batch statistics get
#      combined, averaging their means and their variances. That ignores how many values stand
#      behind each rank and how far apart their means are; only equal counts with equal means
#      come out right
import torch


def _stats(n, mean, m2):
    return (n, mean, m2)


def merged_running_stats(shards, correction=1):
    history, states = [], []
    for chunks in shards:
        values, rows = torch.zeros(0, dtype=torch.float64), []
        for chunk in chunks:
            values = torch.cat([values, chunk])
            n = values.numel()
            mean = float(values.mean()) if n else 0.0
            rows.append((float(n), mean, float(((values - mean) ** 2).sum()) if n else 0.0))
        history.append(torch.tensor(rows, dtype=torch.float64).reshape(-1, 3))
        states.append(rows[-1] if rows else (0.0, 0.0, 0.0))
    tree = [torch.tensor(states, dtype=torch.float64).reshape(-1, 3)]
    while len(states) > 1:
        merged = []
        for i in range(0, len(states), 2):
            if i + 1 == len(states):
                merged.append(states[i])
                continue
            (na, ma, qa), (nb, mb, qb) = states[i], states[i + 1]
            n = na + nb
            var = ((qa / na if na else 0.0) + (qb / nb if nb else 0.0)) / 2
            merged.append((n, (ma + mb) / 2, var * n))
        states = merged
        tree.append(torch.tensor(states, dtype=torch.float64).reshape(-1, 3))
    n, mean, m2 = states[0]
    return history, tree, mean, (m2 / (n - correction) if n > correction else float("nan"))
