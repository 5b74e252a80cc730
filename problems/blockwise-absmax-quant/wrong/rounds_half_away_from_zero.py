# expect: wrong_answer
# why: rounds with sign(v) * floor(|v| + 0.5), half away from zero as in C's round(); the block of
#      exact ties (2.5, 3.5, ...) must round half to even like torch.round
import torch
import triton
import triton.language as tl

BLOCK = 256


@triton.jit
def _absmax_quant_kernel(x_ptr, codes_ptr, absmax_ptr, dequantized_ptr, n, inv_qmax, BLOCK: tl.constexpr):
    block = tl.program_id(0).to(tl.int64)
    offs = block * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    absmax = tl.max(tl.abs(x), axis=0)
    step = absmax * inv_qmax
    step = tl.where(step > 0, step, 1.0)
    scaled = tl.math.div_rn(x, step)
    codes = tl.where(scaled < 0, -1.0, 1.0) * tl.floor(tl.abs(scaled) + 0.5)
    tl.store(codes_ptr + offs, codes.to(tl.int8), mask=mask)
    tl.store(dequantized_ptr + offs, codes * step, mask=mask)
    tl.store(absmax_ptr + block, absmax)


def blockwise_absmax_quant(x):
    x = x.contiguous()
    n = x.numel()
    blocks = triton.cdiv(n, BLOCK)
    codes = torch.empty(n, dtype=torch.int8, device=x.device)
    dequantized = torch.empty(n, dtype=torch.float32, device=x.device)
    absmax = torch.empty(blocks, dtype=torch.float32, device=x.device)
    _absmax_quant_kernel[(blocks,)](x, codes, absmax, dequantized, n, 1.0 / 127.0, BLOCK=BLOCK,
                                    enable_fp_fusion=False)
    return codes, absmax, dequantized
