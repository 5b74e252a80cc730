# expect: wrong_answer
# why: counts the tree's rounds as floor(log2 W): right for powers of two, but 5 ranks need 3 rounds
#      each way (rank 4 has no partner until round 2), not 2
import math


def all_reduce_cost(num_ranks, size_bytes, latency_us, bandwidth_gbps):
    W, S = num_ranks, size_bytes
    alpha, beta = latency_us * 1e-6, bandwidth_gbps * 1e9
    rounds = int(math.log2(W))
    ring = 2 * (W - 1) * (alpha + S / W / beta)
    tree = 2 * rounds * (alpha + S / beta)
    factor = 2 * (W - 1) / W

    def figures(t):
        algbw = S / t / 1e9
        return {"time_us": t * 1e6, "algbw_gbps": algbw, "busbw_gbps": algbw * factor}

    crossover = max(0.0, (W - 1 - rounds) * alpha * beta / (rounds - (W - 1) / W))
    return {"ring": figures(ring), "tree": figures(tree), "faster": "ring" if ring <= tree else "tree",
            "crossover_bytes": crossover}
