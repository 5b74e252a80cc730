# expect: wrong_answer
# why: counts Adam's moments (8 bytes) as the whole optimizer state and forgets the FP32 master weights (4 bytes)
def zero_memory_per_gpu(num_params: int, num_gpus: int) -> dict:
    w = g = num_params * 2 / 1e9
    o = num_params * 8 / 1e9
    k = num_gpus
    return {"DDP": w + g + o, "ZeRO-1": w + g + o / k, "ZeRO-2": w + (g + o) / k, "ZeRO-3": (w + g + o) / k}
