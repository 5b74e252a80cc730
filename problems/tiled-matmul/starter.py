# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU the
# grader runs Triton kernels through the Triton interpreter.


def linear(x, weight):
    """x @ weight.T as a tiled Triton kernel (the matmul of a linear layer without bias).

    x: [M, K] fp16; weight: [N, K] fp16 (nn.Linear's layout: one row per output feature). Accumulate in
    fp32 and return a new contiguous [M, N] fp32 tensor; do not modify x or weight.
    """
    raise NotImplementedError
