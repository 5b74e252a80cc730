# expect: wrong_answer
# why: launches one program per FULL block (n // 256 of them), so the last, partial block is never
#      quantised: its codes, values and absmax are whatever the empty outputs held (zeros here)
import torch
import triton
import triton.language as tl

BLOCK = 256
ROUNDING = tl.constexpr(12582912.0)  # 1.5 * 2**23: adding and subtracting it rounds half to even


@triton.jit
def _absmax_quant_kernel(x_ptr, codes_ptr, absmax_ptr, dequantized_ptr, inv_qmax, BLOCK: tl.constexpr):
    block = tl.program_id(0).to(tl.int64)
    offs = block * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    absmax = tl.max(tl.abs(x), axis=0)
    step = absmax * inv_qmax
    step = tl.where(step > 0, step, 1.0)
    codes = (tl.math.div_rn(x, step) + ROUNDING) - ROUNDING
    tl.store(codes_ptr + offs, codes.to(tl.int8))
    tl.store(dequantized_ptr + offs, codes * step)
    tl.store(absmax_ptr + block, absmax)


def blockwise_absmax_quant(x):
    x = x.contiguous()
    n = x.numel()
    blocks = triton.cdiv(n, BLOCK)
    codes = torch.empty(n, dtype=torch.int8, device=x.device)
    dequantized = torch.empty(n, dtype=torch.float32, device=x.device)
    absmax = torch.empty(blocks, dtype=torch.float32, device=x.device)
    codes.zero_()
    dequantized.zero_()
    absmax.zero_()
    if n // BLOCK:
        _absmax_quant_kernel[(n // BLOCK,)](x, codes, absmax, dequantized, 1.0 / 127.0, BLOCK=BLOCK,
                                            enable_fp_fusion=False)
    return codes, absmax, dequantized
