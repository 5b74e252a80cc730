# expect: wrong_answer
# why: lumps master weights and both moments into one "optimizer" entry (12 bytes per parameter);
#      the numbers add up but the dict does not have the keys the statement asks for
DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}


def training_memory_breakdown(num_params, param_dtype="bf16", master_weights=True):
    width = DTYPE_BYTES[param_dtype]
    master = 4 * num_params if master_weights and param_dtype != "fp32" else 0
    optimizer = master + 8 * num_params
    return {"weights": width * num_params, "gradients": width * num_params, "optimizer": optimizer,
            "total": 2 * width * num_params + optimizer}
