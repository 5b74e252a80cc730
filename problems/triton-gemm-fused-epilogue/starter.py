# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU the
# grader runs Triton kernels through the Triton interpreter.


def linear_bias_act(x, weight, bias, activation):
    """activation(x @ weight.T + bias) as one Triton kernel: the GEMM, then the bias and the activation applied
    to the fp32 accumulator in the kernel, before its one store.

    x: [M, K] fp16; weight: [N, K] fp16 (nn.Linear's layout); bias: [N] fp16; activation: "gelu_tanh" (GELU,
    tanh approximation) or "silu". Return a new contiguous [M, N] fp32 tensor; do not modify the inputs.
    """
    raise NotImplementedError
