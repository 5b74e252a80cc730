# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU
# the grader runs Triton kernels through the Triton interpreter.


def rmsnorm(x, weight, eps=1e-6):
    """RMSNorm of each row, in one pass over memory.

    x: (rows, columns) bf16, columns <= 16384; weight: (columns,) bf16.
    y = x / sqrt(mean(x ** 2 over the row) + eps) * weight, computed in fp32.
    Return y as a new (rows, columns) bf16 tensor; do not modify x or weight.
    """
    raise NotImplementedError
