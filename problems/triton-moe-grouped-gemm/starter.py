# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU the
# grader runs Triton kernels through the Triton interpreter.


def grouped_gemm(x, weights, expert_offsets):
    """Every expert's GEMM in one Triton launch: the MoE layer's expert matmuls after routing.

    x: [T, K] fp16, the tokens sorted by expert; weights: [E, N, K] fp16, expert e's weight in nn.Linear's
    layout; expert_offsets: [E + 1] int32, expert e owns rows expert_offsets[e]:expert_offsets[e + 1] (an expert
    may own none). Return a new contiguous [T, N] fp32 tensor whose row t is x[t] @ weights[e].T for the expert
    e owning row t, accumulated in fp32; do not modify the inputs.
    """
    raise NotImplementedError
