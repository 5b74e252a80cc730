# expect: wrong_answer
# why: divides all 34 sbh by t under plain tensor parallelism; the layernorm inputs, the block
#      inputs and the dropout masks (10 sbh) stay replicated on every rank unless sequence
#      parallelism splits them
def activation_bytes_per_layer(seq_len, micro_batch, hidden, num_heads, tensor_parallel=1,
                               sequence_parallel=False, selective_recompute=False):
    s, b, h, a, t = seq_len, micro_batch, hidden, num_heads, tensor_parallel
    attention = 0.0 if selective_recompute else 5 * a * s / (h * t)
    return s * b * h * (34 / t + attention)
