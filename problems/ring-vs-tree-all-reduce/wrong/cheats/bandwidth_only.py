# expect: wrong_answer
# why: the shortcut of reading busbw backwards: time = bytes on the wire / link bandwidth, with no
#      latency at all. It skips what the model is for: small messages are latency-bound, so it says the
#      ring always wins, and an empty buffer costs nothing
def all_reduce_cost(num_ranks, size_bytes, latency_us, bandwidth_gbps):
    W, S = num_ranks, size_bytes
    beta = bandwidth_gbps * 1e9
    rounds = (W - 1).bit_length()
    ring = 2 * (W - 1) / W * S / beta
    tree = 2 * rounds * S / beta
    factor = 2 * (W - 1) / W

    def figures(t):
        algbw = S / t / 1e9 if t else 0.0
        return {"time_us": t * 1e6, "algbw_gbps": algbw, "busbw_gbps": algbw * factor}

    return {"ring": figures(ring), "tree": figures(tree), "faster": "ring" if ring <= tree else "tree",
            "crossover_bytes": 0.0}
