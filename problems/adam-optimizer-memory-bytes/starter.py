def adam_memory_bytes(num_params: int) -> int:
    """Bytes of Adam optimizer state for a model with `num_params` parameters.

    Mixed-precision training keeps, per parameter, an FP32 master weight, the FP32 first
    moment m and the FP32 second moment v. Return the total in bytes, as an int.
    """
    raise NotImplementedError
