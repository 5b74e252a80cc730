# expect: wrong_answer
# why: charges the latency once per all-reduce and the bytes over the link, skipping the count of
#      messages on the critical path; the ring's 2 (W - 1) latencies are what make it lose on small
#      buffers, so this shortcut picks the ring everywhere
def all_reduce_cost(num_ranks, size_bytes, latency_us, bandwidth_gbps):
    W, S = num_ranks, size_bytes
    alpha, beta = latency_us * 1e-6, bandwidth_gbps * 1e9
    rounds = (W - 1).bit_length()
    ring = alpha + 2 * (W - 1) * S / W / beta
    tree = alpha + 2 * rounds * S / beta
    factor = 2 * (W - 1) / W

    def figures(t):
        algbw = S / t / 1e9
        return {"time_us": t * 1e6, "algbw_gbps": algbw, "busbw_gbps": algbw * factor}

    return {"ring": figures(ring), "tree": figures(tree), "faster": "ring" if ring <= tree else "tree",
            "crossover_bytes": 0.0}
