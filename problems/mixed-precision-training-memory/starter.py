def training_memory_breakdown(num_params: int, param_dtype: str = "bf16",
                              master_weights: bool = True) -> dict:
    """Persistent memory of Adam training for `num_params` parameters, item by item, in bytes.

    param_dtype: "fp32", "bf16" or "fp16", the dtype of the weights and of the gradients.
    master_weights: keep an fp32 master copy of the weights (only meaningful for 16-bit
    weights: fp32 weights are their own master copy). Adam's m and v are always fp32.

    Return {"weights": int, "gradients": int, "master_weights": int, "adam_m": int,
            "adam_v": int, "total": int}, all in bytes.
    """
    raise NotImplementedError
