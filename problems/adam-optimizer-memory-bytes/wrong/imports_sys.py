# expect: forbidden
# why: imports sys (forbidden by this problem) for a debug print to stderr
import sys


def adam_memory_bytes(num_params: int) -> int:
    total = num_params * 12
    print(f"debug: {total} bytes", file=sys.stderr)
    return total
