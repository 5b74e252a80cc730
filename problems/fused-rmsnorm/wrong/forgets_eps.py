# expect: wrong_answer
# why: leaves eps out of the root: the row of zeros becomes 0 / 0 = NaN, and the rows of ~1e-4
#      are blown up to unit scale
import torch
import triton
import triton.language as tl

from infrakata.kernels.bf16 import bf16_bits, bf16_bits_view


@triton.jit
def _rmsnorm_kernel(x_ptr, weight_ptr, out_ptr, columns, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < columns
    x = tl.load(x_ptr + row * columns + offs, mask=mask, other=0.0).to(tl.float32)
    weight = tl.load(weight_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    inv_rms = 1.0 / tl.sqrt_rn(tl.sum(x * x, axis=0) / columns)
    tl.store(out_ptr + row * columns + offs, bf16_bits(x * inv_rms * weight), mask=mask)


def rmsnorm(x, weight, eps=1e-6):
    x, weight = x.contiguous(), weight.contiguous()
    out = torch.empty_like(x)
    rows, columns = x.shape
    _rmsnorm_kernel[(rows,)](x, weight, bf16_bits_view(out), columns, BLOCK=triton.next_power_of_2(columns))
    return out
