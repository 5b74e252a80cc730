# expect: wrong_answer
# why: returns the four figures as a list in stage order (as the lab's assert reads them) instead of the dict keyed by scheme
def zero_memory_per_gpu(num_params: int, num_gpus: int) -> dict:
    w = g = num_params * 2 / 1e9
    o = num_params * 12 / 1e9
    k = num_gpus
    return [w + g + o, w + g + o / k, w + (g + o) / k, (w + g + o) / k]
