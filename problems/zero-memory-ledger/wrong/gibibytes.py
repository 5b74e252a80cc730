# expect: wrong_answer
# why: divides by 2**30 (GiB) where the ledger counts GB = 1e9 bytes
def zero_memory_per_gpu(num_params: int, num_gpus: int) -> dict:
    w = g = num_params * 2 / 2**30
    o = num_params * 12 / 2**30
    k = num_gpus
    return {"DDP": w + g + o, "ZeRO-1": w + g + o / k, "ZeRO-2": w + (g + o) / k, "ZeRO-3": (w + g + o) / k}
