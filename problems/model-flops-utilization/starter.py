def model_flops_utilization(tokens_per_second: float, num_params: int, num_layers: int,
                            num_heads: int, head_dim: int, seq_len: int,
                            peak_flops_per_chip: float, num_chips: int = 1) -> float:
    """MFU of a training run, as PaLM (Chowdhery et al. 2022, appendix B) defines it.

    tokens_per_second: training throughput of the whole job (all chips together).
    Model FLOPs per token: 6 * num_params + 12 * num_layers * num_heads * head_dim * seq_len.
    The hardware offers peak_flops_per_chip on each of num_chips chips.

    Return the fraction achieved / peak (0.462, not 46.2), not clamped to 1.
    """
    raise NotImplementedError
