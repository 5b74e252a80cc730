# expect: wrong_answer
# why: divides the whole job's throughput by ONE chip's peak: tokens_per_second is summed over
#      num_chips, so the peak must be too (PaLM comes out at 2840%, not 46.2%)
def model_flops_utilization(tokens_per_second, num_params, num_layers, num_heads, head_dim, seq_len,
                            peak_flops_per_chip, num_chips=1):
    flops_per_token = 6 * num_params + 12 * num_layers * num_heads * head_dim * seq_len
    return tokens_per_second * flops_per_token / peak_flops_per_chip
