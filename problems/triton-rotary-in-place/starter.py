# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU the
# grader runs Triton kernels through the Triton interpreter.


def rotary_embedding_(q, k, positions, cos_sin_cache):
    """Rotary embedding applied in place to q and k by a Triton kernel; returns (q, k), the same tensors.

    q: [T, Hq, D] and k: [T, Hk, D], views of a fused qkv projection (fp32, fp16 or bf16; the last dimension
    contiguous, the others strided); positions: [T] int64; cos_sin_cache: [max_positions, D] fp32, cos of the
    D/2 angles then their sin. Pairs coordinate i with i + D/2 (rotate-half). Write the rotated values into
    q's and k's own memory; positions and cos_sin_cache must not change.
    """
    raise NotImplementedError
