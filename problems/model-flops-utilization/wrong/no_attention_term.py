# expect: wrong_answer
# why: counts only 6N per token and drops PaLM's attention term 12*L*H*Q*T: about 1.6% low for
#      PaLM 540B, and off by more than 10x at a 131072-token context
def model_flops_utilization(tokens_per_second, num_params, num_layers, num_heads, head_dim, seq_len,
                            peak_flops_per_chip, num_chips=1):
    return tokens_per_second * 6 * num_params / (peak_flops_per_chip * num_chips)
