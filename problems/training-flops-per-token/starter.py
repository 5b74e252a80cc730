def kaplan_flops_per_token(n_layer: int, d_model: int, n_ctx: int, d_ff: int | None = None,
                           d_attn: int | None = None, recompute: bool = False) -> dict:
    """FLOPs per training token of a dense transformer, counted as Kaplan et al. 2020, Table 1.

    d_ff defaults to 4 * d_model and d_attn to d_model. Count the non-embedding parameters N,
    the forward FLOPs per token (2N plus the attention-mask term) and the training FLOPs per
    token (forward + backward, where backward costs twice the forward; with recompute=True
    the forward runs once more).

    Return {"params": int, "forward": int, "train": int}.
    """
    raise NotImplementedError
