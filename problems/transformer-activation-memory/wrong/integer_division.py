# expect: wrong_answer
# why: computes 24 // t and 5*a*s // (h*t) with integer division; exact for the GPT-3 shapes,
#      but t = 16 gives 1 instead of 1.5 and s 1000, h 4096, a 32 gives 39 instead of 39.0625
def activation_bytes_per_layer(seq_len, micro_batch, hidden, num_heads, tensor_parallel=1,
                               sequence_parallel=False, selective_recompute=False):
    s, b, h, a, t = seq_len, micro_batch, hidden, num_heads, tensor_parallel
    replicated = 10 // t if sequence_parallel else 10
    attention = 0 if selective_recompute else 5 * a * s // (h * t)
    return s * b * h * (replicated + 24 // t + attention)
