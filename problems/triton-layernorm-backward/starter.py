# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU the
# grader runs Triton kernels through the Triton interpreter.


def layernorm_backward(x, weight, grad_out, mean, rstd):
    """LayerNorm's backward pass in Triton, from the forward's saved statistics.

    x, grad_out: [N, D] bf16 (D <= 16384); weight: [D] bf16; mean, rstd: [N] fp32, the forward's per-row mean
    and 1 / sqrt(var + eps). Return (dx, dweight, dbias): dx [N, D] bf16; dweight and dbias [D] fp32, summed
    over the rows inside your kernels (partial sums per program, then a second kernel, or atomics). Do not
    modify the inputs.
    """
    raise NotImplementedError
