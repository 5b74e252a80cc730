def zero_memory_per_gpu(num_params: int, num_gpus: int) -> dict:
    """Persistent training state per GPU, in GB (1e9 bytes), under DDP and ZeRO-1/2/3.

    Per parameter: weight 2 bytes, gradient 2 bytes, FP32 master weight 4 bytes, Adam
    moments 8 bytes. DDP replicates everything; ZeRO-1 shards the optimizer state (master +
    moments) over `num_gpus`; ZeRO-2 also shards the gradients; ZeRO-3 also the weights.

    Return {"DDP": float, "ZeRO-1": float, "ZeRO-2": float, "ZeRO-3": float}.
    """
    raise NotImplementedError
