# A wrong solution (it forgets the FP32 master weights): `kata run` shows the failing cases.
def adam_memory_bytes(num_params: int) -> int:
    return num_params * 8
