# expect: wrong_answer
# why: always counts the master copy for 16-bit weights, ignoring master_weights=False (pure
#      bf16 training keeps no fp32 copy: 12 bytes per parameter, not 16)
DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}


def training_memory_breakdown(num_params, param_dtype="bf16", master_weights=True):
    width = DTYPE_BYTES[param_dtype]
    master = 4 * num_params if param_dtype != "fp32" else 0
    items = {"weights": width * num_params, "gradients": width * num_params, "master_weights": master,
             "adam_m": 4 * num_params, "adam_v": 4 * num_params}
    items["total"] = sum(items.values())
    return items
