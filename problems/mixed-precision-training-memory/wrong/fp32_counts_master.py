# expect: wrong_answer
# why: adds a 4-byte master copy whenever master_weights is True, also beside fp32 weights,
#      which already are the master copy (20 bytes per parameter instead of 16); only the fp32 cases show it
DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}


def training_memory_breakdown(num_params, param_dtype="bf16", master_weights=True):
    width = DTYPE_BYTES[param_dtype]
    master = 4 * num_params if master_weights else 0
    items = {"weights": width * num_params, "gradients": width * num_params, "master_weights": master,
             "adam_m": 4 * num_params, "adam_v": 4 * num_params}
    items["total"] = sum(items.values())
    return items
