# expect: wrong_answer
# why: one absmax for the whole tensor (taken first, by a kernel pass of its own) instead of one per block
#      of 256, so the outlier (1000.0) flattens every other block to a handful of codes
import torch
import triton
import triton.language as tl

BLOCK = 256
ROUNDING = tl.constexpr(12582912.0)  # 1.5 * 2**23: adding and subtracting it rounds half to even


@triton.jit
def _tensor_absmax_kernel(x_ptr, scale_ptr, n, BLOCK: tl.constexpr):
    # One program walks the whole tensor: the largest magnitude of all of it.
    largest = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        largest = tl.maximum(largest, tl.abs(tl.load(x_ptr + offs, mask=offs < n, other=0.0)))
    tl.store(scale_ptr, tl.max(largest, axis=0))


@triton.jit
def _quant_kernel(x_ptr, codes_ptr, absmax_ptr, dequantized_ptr, scale_ptr, n, inv_qmax, BLOCK: tl.constexpr):
    block = tl.program_id(0).to(tl.int64)
    offs = block * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    scale = tl.load(scale_ptr)
    step = scale * inv_qmax
    step = tl.where(step > 0, step, 1.0)
    codes = (tl.math.div_rn(x, step) + ROUNDING) - ROUNDING
    tl.store(codes_ptr + offs, codes.to(tl.int8), mask=mask)
    tl.store(dequantized_ptr + offs, codes * step, mask=mask)
    tl.store(absmax_ptr + block, scale)


def blockwise_absmax_quant(x):
    n = x.numel()
    blocks = triton.cdiv(n, BLOCK)
    codes = torch.empty(n, dtype=torch.int8, device=x.device)
    dequantized = torch.empty(n, dtype=torch.float32, device=x.device)
    absmax = torch.empty(blocks, dtype=torch.float32, device=x.device)
    scale = torch.zeros(1, dtype=torch.float32, device=x.device)
    _tensor_absmax_kernel[(1,)](x, scale, n, BLOCK=BLOCK)
    _quant_kernel[(blocks,)](x, codes, absmax, dequantized, scale, n, 1.0 / 127.0, BLOCK=BLOCK,
                             enable_fp_fusion=False)
    return codes, absmax, dequantized
