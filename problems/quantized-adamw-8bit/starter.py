# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU
# the grader runs Triton kernels through the Triton interpreter (slow, but exact enough to grade).


def quantized_adamw_step(params, grads, m_code, m_absmax, v_code, v_absmax, qmap1, qmap2, step,
                         lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, wd=0.01):
    """One 8-bit blockwise AdamW step, as one fused kernel.

    params, grads: bf16, N = NB * 2048 elements. m_code, v_code: uint8 codes into qmap1 (signed
    cubic map, 256 ascending fp32 entries) and qmap2 (unsigned cubic map); m_absmax, v_absmax:
    one fp32 scale per block of 2048. step: the 1-based step number (bias correction).

    Dequantise (m = qmap1[m_code] * m_absmax[block], v likewise), take the AdamW step in fp32,
    requantise the new moments per block (absmax, then the NEAREST map entry of x / absmax; ties
    go to the lower entry, like torch.bucketize on the midpoints), and return

        (params_out bf16 (N,), m_out fp32 (N,), v_out fp32 (N,), m_absmax_out (NB,), v_absmax_out (NB,))

    where m_out and v_out are the requantised moments, dequantised. Do not modify the inputs.
    """
    raise NotImplementedError
