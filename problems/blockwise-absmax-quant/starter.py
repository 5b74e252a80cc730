# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU
# the grader runs Triton kernels through the Triton interpreter.


def blockwise_absmax_quant(x):
    """Quantise a 1-D fp32 tensor to int8 in blocks of 256, and dequantise it again, in one pass.

    For each block (the last one may be partial): absmax = max |x|, step = absmax * (1 / 127)
    (1 for a block of zeros), codes = round(x / step) half to even, dequantized = codes * step.
    Return (codes int8 (n,), absmax fp32 (ceil(n / 256),), dequantized fp32 (n,)); do not modify x.
    """
    raise NotImplementedError
