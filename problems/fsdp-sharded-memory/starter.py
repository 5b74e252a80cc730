def sharded_state_bytes(num_params: int, world_size: int, stage: int) -> dict:
    """Persistent model states held by ONE GPU under ZeRO `stage` (0, 1, 2 or 3), in bytes.

    Per parameter: bf16 weights 2 bytes, bf16 gradients 2 bytes, optimizer state 12 bytes
    (fp32 master, Adam m and v). Stage 1 shards the optimizer state over `world_size` ranks,
    stage 2 also the gradients, stage 3 (FSDP FULL_SHARD) also the weights. A sharded state is
    padded so that every rank owns exactly ceil(num_params / world_size) elements.

    Return {"params": int, "grads": int, "optimizer": int, "total": int}.
    """
    raise NotImplementedError
