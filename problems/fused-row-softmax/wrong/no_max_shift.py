# expect: wrong_answer
# why: a row-softmax kernel that exponentiates the raw logits; on the rows shifted by +1000, exp
#      overflows to inf and inf / inf gives NaN
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, out_ptr, columns, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < columns
    x = tl.load(x_ptr + row * columns + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x)
    tl.store(out_ptr + row * columns + offs, e / tl.sum(e, axis=0), mask=mask)


def softmax_rows(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    _softmax_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return out
