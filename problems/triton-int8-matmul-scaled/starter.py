# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU the
# grader runs Triton kernels through the Triton interpreter.


def int8_matmul(a, b, a_scales, b_scales):
    """a @ b.T on int8 codes as one Triton kernel: int32 accumulation, the scales applied in the epilogue.

    a: [M, K] int8 (activation codes); b: [N, K] int8 (weight codes, nn.Linear's layout); a_scales: [M] float32,
    one per row of a; b_scales: [N] float32, one per row of b (a column of the result). Return a new contiguous
    [M, N] float32 tensor, y[m, n] = (float32(acc[m, n]) * a_scales[m]) * b_scales[n] with acc the exact integer
    sum of a[m, k] * b[n, k]; do not modify the inputs.
    """
    raise NotImplementedError
