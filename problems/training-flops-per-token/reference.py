def kaplan_flops_per_token(n_layer: int, d_model: int, n_ctx: int, d_ff: int | None = None,
                           d_attn: int | None = None, recompute: bool = False) -> dict:
    # Kaplan et al. 2020, "Scaling Laws for Neural Language Models", Table 1 (non-embedding).
    d_ff = 4 * d_model if d_ff is None else d_ff
    d_attn = d_model if d_attn is None else d_attn
    # QKV (3 d_model d_attn) + projection (d_attn d_model) + feedforward (2 d_model d_ff), per layer.
    params = 2 * d_model * n_layer * (2 * d_attn + d_ff)
    # 2 FLOPs per parameter (a multiply-add) plus the attention mask term 2 n_layer n_ctx d_attn.
    forward = 2 * params + 2 * n_layer * n_ctx * d_attn
    # Backward is twice the forward; full activation recomputation runs the forward once more.
    train = (4 if recompute else 3) * forward
    return {"params": params, "forward": forward, "train": train}
