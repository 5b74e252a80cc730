# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU the
# grader runs Triton kernels through the Triton interpreter.


def top_p_sample(logits, temperature, top_p, uniforms):
    """Top-p (nucleus) sampling in a Triton kernel: one token id per row, drawn with the row's uniform number.

    logits: [B, V] fp32 (V <= 32768; -inf for masked tokens, at least one finite per row); temperature,
    top_p, uniforms: [B] fp32, with temperature > 0, 0 < top_p <= 1 and 0 <= uniforms < 1. Probabilities are
    softmax(logits / temperature). Ranking tokens by probability (equal ones: lower id first), a token is kept
    when the total probability ranked above it is below top_p (and its own is above 0). Return, as a new [B]
    int64 tensor, the first kept token in id order whose cumulative kept probability exceeds u times the total
    kept probability.
    """
    raise NotImplementedError
