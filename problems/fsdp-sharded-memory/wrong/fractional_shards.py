# expect: wrong_answer
# why: divides by the world size without padding (N / W): right when W divides N, but a rank
#      cannot own half an element; 10 parameters on 4 GPUs need shards of 3, not 2.5
def sharded_state_bytes(num_params, world_size, stage):
    shard = num_params / world_size
    params = 2 * (shard if stage >= 3 else num_params)
    grads = 2 * (shard if stage >= 2 else num_params)
    optimizer = 12 * (shard if stage >= 1 else num_params)
    return {"params": params, "grads": grads, "optimizer": optimizer, "total": params + grads + optimizer}
