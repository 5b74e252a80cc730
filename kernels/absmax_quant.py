"""Blockwise absmax int8 quantisation with its round trip: our solution to `blockwise-absmax-quant`.

Each program takes GROUP blocks of 256 as a 2-D tile: one read of x gives each block's absmax,
its codes and the dequantised values, all written in the same pass. The arithmetic is the
reference's (IEEE division, round half to even), so the codes match it exactly.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
GROUP = 8  # blocks per program
# 1.5 * 2**23: adding and subtracting it rounds |v| < 2**22 half to even. A constexpr, as kernels require.
ROUNDING = tl.constexpr(12582912.0)


@triton.jit
def _absmax_quant_kernel(x_ptr, codes_ptr, absmax_ptr, dequantized_ptr, n, blocks, inv_qmax,
                         BLOCK: tl.constexpr, GROUP: tl.constexpr):
    block = tl.program_id(0).to(tl.int64) * GROUP + tl.arange(0, GROUP)
    offs = block[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :]
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)  # zero padding leaves every absmax unchanged
    absmax = tl.max(tl.abs(x), axis=1)
    step = absmax * inv_qmax
    step = tl.where(step > 0, step, 1.0)  # a block of zeros: codes 0 whatever the step
    scaled = tl.math.div_rn(x, step[:, None])
    codes = (scaled + ROUNDING) - ROUNDING
    tl.store(codes_ptr + offs, codes.to(tl.int8), mask=mask)
    tl.store(dequantized_ptr + offs, codes * step[:, None], mask=mask)
    tl.store(absmax_ptr + block, absmax, mask=block < blocks)


def blockwise_absmax_quant(x: torch.Tensor):
    """x (fp32, 1-D) -> (codes int8 like x, absmax fp32 per block of 256, dequantized fp32 like x)."""
    x = x.contiguous()
    n = x.numel()
    blocks = triton.cdiv(n, BLOCK)
    codes = torch.empty(n, dtype=torch.int8, device=x.device)
    dequantized = torch.empty(n, dtype=torch.float32, device=x.device)
    absmax = torch.empty(blocks, dtype=torch.float32, device=x.device)
    _absmax_quant_kernel[(triton.cdiv(blocks, GROUP),)](
        x, codes, absmax, dequantized, n, blocks, 1.0 / 127.0, BLOCK=BLOCK, GROUP=GROUP, num_warps=8,
        enable_fp_fusion=False)
    return codes, absmax, dequantized
