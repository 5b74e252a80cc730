# expect: wrong_answer
# why: rounds up the bytes (ceil(2N / W)) instead of the elements (2 * ceil(N / W)); the padding
#      is whole elements of the flat tensor, so 10 bf16 parameters on 4 GPUs are 6 bytes, not 5
def sharded_state_bytes(num_params, world_size, stage):
    def shard(width):
        return -(-width * num_params // world_size)
    params = shard(2) if stage >= 3 else 2 * num_params
    grads = shard(2) if stage >= 2 else 2 * num_params
    optimizer = shard(12) if stage >= 1 else 12 * num_params
    return {"params": params, "grads": grads, "optimizer": optimizer, "total": params + grads + optimizer}
