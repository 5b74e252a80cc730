def all_reduce_cost(num_ranks: int, size_bytes: int, latency_us: float, bandwidth_gbps: float) -> dict:
    """The time of one all-reduce of `size_bytes` over `num_ranks` ranks, by ring and by binomial tree.

    A message of b bytes takes latency_us microseconds plus b / (bandwidth_gbps * 1e9) seconds; a rank
    sends one message and receives one at a time. Return
    {"ring": {"time_us", "algbw_gbps", "busbw_gbps"}, "tree": {...}, "faster": "ring" | "tree",
     "crossover_bytes": float}, every number a float.
    """
    raise NotImplementedError
