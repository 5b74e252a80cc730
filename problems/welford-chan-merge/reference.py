import torch


def _merge(a, b):
    # Chan, Golub and LeVeque: the count, mean and M2 (sum of squared deviations) of the union of two
    # sets, from each set's own.
    (na, ma, m2a), (nb, mb, m2b) = a, b
    n = na + nb
    if n == 0:
        return (0.0, 0.0, 0.0)
    delta = mb - ma
    return (n, ma + delta * nb / n, m2a + m2b + delta * delta * na * nb / n)


def _chunk(x):
    if x.numel() == 0:
        return (0.0, 0.0, 0.0)
    mean = x.mean()
    return (float(x.numel()), float(mean), float(((x - mean) ** 2).sum()))


def merged_running_stats(shards, correction=1):
    history, states = [], []
    for chunks in shards:
        state, seen = (0.0, 0.0, 0.0), []
        for chunk in chunks:  # each rank folds its chunks in as they arrive
            state = _merge(state, _chunk(chunk))
            seen.append(state)
        history.append(torch.tensor(seen, dtype=torch.float64).reshape(-1, 3))
        states.append(state)
    tree = [torch.tensor(states, dtype=torch.float64).reshape(-1, 3)]
    while len(states) > 1:  # pairs (0, 1), (2, 3), ...: an odd last state passes through
        states = [_merge(*states[i:i + 2]) if i + 1 < len(states) else states[i] for i in range(0, len(states), 2)]
        tree.append(torch.tensor(states, dtype=torch.float64).reshape(-1, 3))
    n, mean, m2 = states[0]
    var = m2 / (n - correction) if n - correction > 0 else float("nan")
    return history, tree, mean, var
