# expect: wrong_answer
# why: skips the stable update: turns each state into the count, the sum and the sum of squares (the
#      textbook one-pass form, trivially mergeable by addition) and computes M2 = sum(x^2) - n mean^2
#      back. Around 1e9 the two terms are 1e18 times n and agree in all but the last digits:
#      float64's 16 digits cancel to noise, and M2 comes out wrong (even negative)
import torch


def _sums(state):
    n, mean, m2 = state
    return (n, n * mean, m2 + n * mean * mean)


def _state(n, s, q):
    return (float(n), s / n, q - s * s / n) if n else (0.0, 0.0, 0.0)


def _add(a, b):
    return _state(*(x + y for x, y in zip(_sums(a), _sums(b), strict=True)))


def merged_running_stats(states, chunks, correction=1):
    level = [_add(tuple(s), _state(c.numel(), float(c.sum()), float((c * c).sum())))
             for s, c in zip(states.tolist(), chunks, strict=True)]
    tree = [torch.tensor(level, dtype=torch.float64).reshape(-1, 3)]
    while len(level) > 1:
        level = [_add(*level[i:i + 2]) if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
        tree.append(torch.tensor(level, dtype=torch.float64).reshape(-1, 3))
    n, mean, m2 = level[0]
    return tree, mean, (m2 / (n - correction) if n > correction else float("nan"))
