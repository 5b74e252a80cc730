# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU the
# grader runs Triton kernels through the Triton interpreter.


def split_k_linear(x, weight):
    """x @ weight.T with K split across programs: partial tiles in fp32, then reduced.

    x: [M, K] fp16; weight: [N, K] fp16 (nn.Linear's layout). Return a new contiguous [M, N] fp32 tensor;
    do not modify x or weight. M and N are small and K is long: split K so that many programs share each
    output tile, and add their fp32 partial tiles (a second kernel, or atomics).
    """
    raise NotImplementedError
