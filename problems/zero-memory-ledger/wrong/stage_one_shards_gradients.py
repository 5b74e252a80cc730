# expect: wrong_answer
# why: shards the gradients already in ZeRO-1; stage 1 partitions only the optimizer state, stage 2 adds the gradients
def zero_memory_per_gpu(num_params: int, num_gpus: int) -> dict:
    w = g = num_params * 2 / 1e9
    o = num_params * 12 / 1e9
    k = num_gpus
    return {"DDP": w + g + o, "ZeRO-1": w + (g + o) / k, "ZeRO-2": w + (g + o) / k, "ZeRO-3": (w + g + o) / k}
