# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU
# the grader runs Triton kernels through the Triton interpreter.


def softmax_rows(x):
    """Softmax over the last dimension of a 2-D fp32 tensor, in one pass over memory.

    x: (rows, columns) fp32, columns <= 16384; entries may be -inf (masked), and every row has at
    least one finite entry. Return a new (rows, columns) fp32 tensor; do not modify x.
    """
    raise NotImplementedError
