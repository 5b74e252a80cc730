DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}


def training_memory_breakdown(num_params: int, param_dtype: str = "bf16",
                              master_weights: bool = True) -> dict:
    width = DTYPE_BYTES[param_dtype]
    weights = width * num_params           # the model's own weights, in the training dtype
    gradients = width * num_params         # gradients have the weights' dtype
    # An fp32 master copy only exists beside 16-bit weights; fp32 weights are their own master.
    master = 4 * num_params if master_weights and param_dtype != "fp32" else 0
    adam_m = 4 * num_params                # first moment, fp32
    adam_v = 4 * num_params                # second moment, fp32
    return {
        "weights": weights,
        "gradients": gradients,
        "master_weights": master,
        "adam_m": adam_m,
        "adam_v": adam_v,
        "total": weights + gradients + master + adam_m + adam_v,
    }
