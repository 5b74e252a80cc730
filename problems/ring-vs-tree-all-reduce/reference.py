def all_reduce_cost(num_ranks: int, size_bytes: int, latency_us: float, bandwidth_gbps: float) -> dict:
    W, S = num_ranks, size_bytes
    alpha = latency_us * 1e-6        # seconds per message
    beta = bandwidth_gbps * 1e9      # bytes per second, each direction of a link
    rounds = (W - 1).bit_length()    # ceil(log2 W): binomial-tree rounds each way
    # Ring: 2 (W - 1) steps (reduce-scatter, then all-gather), each moving one chunk of S / W bytes.
    ring = 2 * (W - 1) * (alpha + S / W / beta)
    # Binomial tree: reduce to rank 0, then broadcast from it; every round moves the whole buffer.
    tree = 2 * rounds * (alpha + S / beta)
    # nccl-tests' bus bandwidth: algbw times the bytes a rank sends in a ring all-reduce, per byte of S.
    factor = 2 * (W - 1) / W

    def figures(seconds):
        algbw = S / seconds / 1e9
        return {"time_us": seconds * 1e6, "algbw_gbps": algbw, "busbw_gbps": algbw * factor}

    # The tree wins below the size where the two times meet: it pays fewer latencies, more bytes.
    crossover = (W - 1 - rounds) * alpha * beta / (rounds - (W - 1) / W)
    return {"ring": figures(ring), "tree": figures(tree), "faster": "ring" if ring <= tree else "tree",
            "crossover_bytes": crossover}
