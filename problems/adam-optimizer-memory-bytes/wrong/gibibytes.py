# expect: wrong_answer
# why: answers in GiB instead of bytes
def adam_memory_bytes(num_params: int) -> int:
    return num_params * 12 / 2**30
