# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU
# the grader runs Triton kernels through the Triton interpreter.


def fused_swiglu(gate, up):
    """silu(gate) * up for two bf16 tensors of shape (rows, columns), in one pass over memory.

    silu(g) = g * sigmoid(g). Load bf16, widen to fp32 before any arithmetic, compute in fp32,
    and return a new bf16 tensor of the same shape. Do not modify gate or up.
    """
    raise NotImplementedError
