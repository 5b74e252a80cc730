# expect: wrong_answer
# why: shards the gradients already at stage 1; ZeRO-1 partitions only the optimizer state,
#      the gradients are reduce-scattered (sharded) from stage 2 on
def sharded_state_bytes(num_params, world_size, stage):
    shard = -(-num_params // world_size)
    params = 2 * (shard if stage >= 3 else num_params)
    grads = 2 * (shard if stage >= 1 else num_params)
    optimizer = 12 * (shard if stage >= 1 else num_params)
    return {"params": params, "grads": grads, "optimizer": optimizer, "total": params + grads + optimizer}
