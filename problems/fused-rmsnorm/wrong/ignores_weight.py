# expect: wrong_answer
# why: normalises but never loads the learned weight, let alone multiplies by it
import torch
import triton
import triton.language as tl

from infrakata.kernels.bf16 import bf16_bits, bf16_bits_view


@triton.jit
def _rmsnorm_kernel(x_ptr, out_ptr, columns, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < columns
    x = tl.load(x_ptr + row * columns + offs, mask=mask, other=0.0).to(tl.float32)
    inv_rms = 1.0 / tl.sqrt_rn(tl.sum(x * x, axis=0) / columns + eps)
    tl.store(out_ptr + row * columns + offs, bf16_bits(x * inv_rms), mask=mask)


def rmsnorm(x, weight, eps=1e-6):
    x = x.contiguous()
    out = torch.empty_like(x)
    rows, columns = x.shape
    _rmsnorm_kernel[(rows,)](x, bf16_bits_view(out), columns, eps, BLOCK=triton.next_power_of_2(columns))
    return out
