# expect: wrong_answer
# why: times both algorithms right but reports the algorithm bandwidth as the bus bandwidth, skipping
#      the normalisation that makes busbw comparable with the link (a latency-free ring reads exactly
#      the link's bandwidth only after the 2 (W - 1) / W factor)
def all_reduce_cost(num_ranks, size_bytes, latency_us, bandwidth_gbps):
    W, S = num_ranks, size_bytes
    alpha, beta = latency_us * 1e-6, bandwidth_gbps * 1e9
    rounds = (W - 1).bit_length()
    ring = 2 * (W - 1) * (alpha + S / W / beta)
    tree = 2 * rounds * (alpha + S / beta)

    def figures(t):
        algbw = S / t / 1e9
        return {"time_us": t * 1e6, "algbw_gbps": algbw, "busbw_gbps": algbw}

    crossover = (W - 1 - rounds) * alpha * beta / (rounds - (W - 1) / W)
    return {"ring": figures(ring), "tree": figures(tree), "faster": "ring" if ring <= tree else "tree",
            "crossover_bytes": crossover}
