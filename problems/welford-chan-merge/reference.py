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


def merged_running_stats(states, chunks, correction=1):
    level = []
    for state, chunk in zip(states.tolist(), chunks, strict=True):
        # The rank's state is all that is left of its earlier chunks: fold the arriving one into it.
        state = _merge(tuple(state), _chunk(chunk))
        level.append(state)
    tree = [torch.tensor(level, dtype=torch.float64).reshape(-1, 3)]
    while len(level) > 1:  # pairs (0, 1), (2, 3), ...: an odd last state passes through
        level = [_merge(*level[i:i + 2]) if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
        tree.append(torch.tensor(level, dtype=torch.float64).reshape(-1, 3))
    n, mean, m2 = level[0]
    var = m2 / (n - correction) if n - correction > 0 else float("nan")
    return tree, mean, var
