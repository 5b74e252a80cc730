"""RMSNorm in one pass: our solution to `fused-rmsnorm`.

One program per row: the bf16 row is read once, widened to fp32, its mean square reduced in
registers, and the scaled row written back as bf16. Eager PyTorch goes through four fp32
temporaries of the whole input.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

# Absolute: `kata run` and `kata bench` load this file as a solution module, outside its package.
from infrakata.kernels.bf16 import bf16_bits, bf16_bits_view

MAX_COLUMNS = 16384  # a whole row lives in one program's registers


@triton.jit
def _rmsnorm_kernel(x_ptr, weight_ptr, out_ptr, columns, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < columns
    # bf16 is widened before any arithmetic: bf16 arithmetic is wrong in the Triton interpreter.
    x = tl.load(x_ptr + row * columns + offs, mask=mask, other=0.0).to(tl.float32)
    weight = tl.load(weight_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    # The mean is over the real columns, not the padded block.
    inv_rms = 1.0 / tl.sqrt_rn(tl.sum(x * x, axis=0) / columns + eps)
    tl.store(out_ptr + row * columns + offs, bf16_bits(x * inv_rms * weight), mask=mask)


def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """x * rsqrt(mean(x ** 2, -1) + eps) * weight for a 2-D bf16 x, computed in fp32, returned as bf16."""
    rows, columns = x.shape
    if columns > MAX_COLUMNS:
        raise ValueError(f"rows of {columns} elements; this kernel holds a row in registers, at most {MAX_COLUMNS}")
    x, weight = x.contiguous(), weight.contiguous()
    out = torch.empty_like(x)
    block = triton.next_power_of_2(columns)
    _rmsnorm_kernel[(rows,)](x, weight, bf16_bits_view(out), columns, eps, BLOCK=block,
                             num_warps=4 if block <= 2048 else 8 if block <= 8192 else 16)
    return out
