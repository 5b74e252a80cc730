def adam_memory_bytes(num_params: int) -> int:
    # FP32 master weights (4 B) + first moment m (4 B) + second moment v (4 B).
    return num_params * 12
