def merged_running_stats(shards: list, correction: int = 1):
    """Running mean and variance kept per rank, then merged across ranks in a tree.

    shards[r]: the chunks rank r receives, in order: 1-D float64 tensors (possibly empty).
    Each rank keeps a state (count, mean, M2), M2 being the sum of squared deviations from the
    mean, and updates it with each chunk. Then the ranks' final states are merged in levels:
    states 0 and 1, 2 and 3, ...; an odd last state passes through unchanged; until one is left.
    An empty state is (0, 0, 0).

    Returns (history, tree, mean, var):
      history[r]: float64 [len(shards[r]), 3], rank r's state after each chunk
      tree[k]: float64 [states at level k, 3], tree[0] the ranks' final states, tree[-1] one state
      mean: float, the mean of all values (0.0 when there are none)
      var: float, M2 / (count - correction), NaN when count - correction <= 0
    """
    raise NotImplementedError
