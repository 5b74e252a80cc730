# expect: wrong_answer
# why: adds the FP16 weights and gradients (16 bytes per parameter): that is the whole training state, not the optimizer's
def adam_memory_bytes(num_params: int) -> int:
    return num_params * (2 + 2 + 4 + 4 + 4)
