# expect: wrong_answer
# why: ignores sequence_parallel: keeps the 10 sbh replicated, which is exactly the memory
#      sequence parallelism exists to split
def activation_bytes_per_layer(seq_len, micro_batch, hidden, num_heads, tensor_parallel=1,
                               sequence_parallel=False, selective_recompute=False):
    s, b, h, a, t = seq_len, micro_batch, hidden, num_heads, tensor_parallel
    attention = 0.0 if selective_recompute else 5 * a * s / (h * t)
    return s * b * h * (10 + 24 / t + attention)
