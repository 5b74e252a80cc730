# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU the
# grader runs Triton kernels through the Triton interpreter.


def flash_attention(q, k, v, causal):
    """softmax(q @ k^T / sqrt(D)) @ v per head, as one Triton kernel with an online softmax over key tiles.

    q, k, v: [B, H, S, D] fp16, 1 <= D <= 128; causal: query i sees keys j <= i only. Never form the
    S x S scores. Return (out, lse): out [B, H, S, D] fp32, lse [B, H, S] fp32 (the natural log-sum-exp
    of each row's scaled scores over its visible keys); do not modify q, k or v.
    """
    raise NotImplementedError
