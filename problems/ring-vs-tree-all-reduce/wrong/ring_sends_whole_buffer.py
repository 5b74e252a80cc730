# expect: wrong_answer
# why: prices every ring step as a message of the whole buffer, as if each rank forwarded all of it:
#      the ring's bandwidth term becomes 2 (W - 1) S / beta, W times too much, and the ring never wins
def all_reduce_cost(num_ranks, size_bytes, latency_us, bandwidth_gbps):
    W, S = num_ranks, size_bytes
    alpha, beta = latency_us * 1e-6, bandwidth_gbps * 1e9
    rounds = (W - 1).bit_length()
    ring = 2 * (W - 1) * (alpha + S / beta)
    tree = 2 * rounds * (alpha + S / beta)
    factor = 2 * (W - 1) / W

    def figures(t):
        algbw = S / t / 1e9
        return {"time_us": t * 1e6, "algbw_gbps": algbw, "busbw_gbps": algbw * factor}

    return {"ring": figures(ring), "tree": figures(tree), "faster": "ring" if ring <= tree else "tree",
            "crossover_bytes": 0.0}
