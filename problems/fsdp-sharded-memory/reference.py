def sharded_state_bytes(num_params: int, world_size: int, stage: int) -> dict:
    # The flat tensor is padded to a multiple of world_size: each rank owns ceil(N / W) elements.
    shard = -(-num_params // world_size)
    params = 2 * (shard if stage >= 3 else num_params)       # bf16/fp16 weights
    grads = 2 * (shard if stage >= 2 else num_params)        # bf16/fp16 gradients
    optimizer = 12 * (shard if stage >= 1 else num_params)   # fp32 master + Adam m, v
    return {"params": params, "grads": grads, "optimizer": optimizer,
            "total": params + grads + optimizer}
