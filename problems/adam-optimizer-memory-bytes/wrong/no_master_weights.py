# expect: wrong_answer
# why: counts only the two moments m and v (8 bytes per parameter), forgetting the FP32 master weights
def adam_memory_bytes(num_params: int) -> int:
    return num_params * 8
