def merged_running_stats(states, chunks: list, correction: int = 1):
    """Running mean and variance kept per rank, then merged across ranks in a tree.

    states: float64 [P, 3], rank r's state (count, mean, M2) over the values it saw earlier, M2 being
    the sum of squared deviations from the mean; an empty state is (0, 0, 0). The earlier values are gone.
    chunks[r]: the 1-D float64 tensor (possibly empty) arriving at rank r now.
    Each rank updates its state with its chunk. Then the ranks' states are merged in levels:
    states 0 and 1, 2 and 3, ...; an odd last state passes through unchanged; until one is left.

    Returns (tree, mean, var):
      tree[k]: float64 [states at level k, 3], tree[0] the ranks' updated states, tree[-1] one state
      mean: float, the mean of all values (0.0 when there are none)
      var: float, M2 / (count - correction), NaN when count - correction <= 0
    """
    raise NotImplementedError
