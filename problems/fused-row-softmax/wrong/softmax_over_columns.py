# expect: wrong_answer
# why: one program per column, normalising down each column (dim 0) instead of along each row
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, out_ptr, rows, columns, BLOCK: tl.constexpr):
    column = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < rows
    x = tl.load(x_ptr + offs * columns + column, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + offs * columns + column, e / tl.sum(e, axis=0), mask=mask)


def softmax_rows(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    rows, columns = x.shape
    _softmax_kernel[(columns,)](x, out, rows, columns, BLOCK=triton.next_power_of_2(rows))
    return out
