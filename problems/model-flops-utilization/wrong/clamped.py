# expect: wrong_answer
# why: clamps the result to 1.0; an MFU above 100% means the throughput or the peak is wrong,
#      and clamping hides exactly that (only the inconsistent-measurement case shows it)
def model_flops_utilization(tokens_per_second, num_params, num_layers, num_heads, head_dim, seq_len,
                            peak_flops_per_chip, num_chips=1):
    flops_per_token = 6 * num_params + 12 * num_layers * num_heads * head_dim * seq_len
    return min(1.0, tokens_per_second * flops_per_token / (peak_flops_per_chip * num_chips))
