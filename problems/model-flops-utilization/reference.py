def model_flops_utilization(tokens_per_second: float, num_params: int, num_layers: int,
                            num_heads: int, head_dim: int, seq_len: int,
                            peak_flops_per_chip: float, num_chips: int = 1) -> float:
    # PaLM (Chowdhery et al. 2022), appendix B: a training token costs 6N FLOPs in the matmuls
    # with the weights plus 12 L H Q T in the attention (QK^T and AV, forward and backward).
    flops_per_token = 6 * num_params + 12 * num_layers * num_heads * head_dim * seq_len
    achieved = tokens_per_second * flops_per_token
    return achieved / (peak_flops_per_chip * num_chips)
