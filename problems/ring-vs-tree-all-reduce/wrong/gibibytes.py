# expect: wrong_answer
# why: reads GB/s as GiB/s (2**30 bytes) for the link and the reported bandwidths: every time that
#      has a bandwidth term is off by 7 %
def all_reduce_cost(num_ranks, size_bytes, latency_us, bandwidth_gbps):
    W, S = num_ranks, size_bytes
    alpha, beta = latency_us * 1e-6, bandwidth_gbps * 2 ** 30
    rounds = (W - 1).bit_length()
    ring = 2 * (W - 1) * (alpha + S / W / beta)
    tree = 2 * rounds * (alpha + S / beta)
    factor = 2 * (W - 1) / W

    def figures(t):
        algbw = S / t / 2 ** 30
        return {"time_us": t * 1e6, "algbw_gbps": algbw, "busbw_gbps": algbw * factor}

    crossover = (W - 1 - rounds) * alpha * beta / (rounds - (W - 1) / W)
    return {"ring": figures(ring), "tree": figures(tree), "faster": "ring" if ring <= tree else "tree",
            "crossover_bytes": crossover}
