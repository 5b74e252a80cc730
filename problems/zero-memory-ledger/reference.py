GB = 1e9


def zero_memory_per_gpu(num_params: int, num_gpus: int) -> dict:
    weight = num_params * 2 / GB      # FP16/BF16 weights
    gradient = num_params * 2 / GB    # FP16/BF16 gradients
    optimizer = num_params * 12 / GB  # FP32 master weights (4) + Adam moments m, v (8)
    k = num_gpus
    return {
        "DDP": weight + gradient + optimizer,
        "ZeRO-1": weight + gradient + optimizer / k,
        "ZeRO-2": weight + (gradient + optimizer) / k,
        "ZeRO-3": (weight + gradient + optimizer) / k,
    }
