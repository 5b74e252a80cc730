def activation_bytes_per_layer(seq_len: int, micro_batch: int, hidden: int, num_heads: int,
                               tensor_parallel: int = 1, sequence_parallel: bool = False,
                               selective_recompute: bool = False) -> float:
    # Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
    # Table 2: 16-bit activations, 1-byte dropout masks, per transformer layer per GPU.
    s, b, h, a, t = seq_len, micro_batch, hidden, num_heads, tensor_parallel
    # 10 sbh: layernorm inputs (4), attention and MLP inputs (2 + 2), two dropout masks (1 + 1):
    # replicated under tensor parallelism, split along the sequence by sequence parallelism.
    replicated = 10 / t if sequence_parallel else 10
    # 24 sbh: the rest of the linear/GeLU/dropout activations, split by tensor parallelism.
    split = 24 / t
    # 5 a s^2 b = sbh * 5as/h: softmax output (2), its dropout mask (1), dropout output (2);
    # split over heads by tensor parallelism; selective recomputation drops them.
    attention = 0.0 if selective_recompute else 5 * a * s / (h * t)
    return s * b * h * (replicated + split + attention)
