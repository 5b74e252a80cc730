# expect: wrong_answer
# why: the classic Triton masking bug: the lanes past the row's end are loaded as 0 instead of -inf,
#      so every padded lane adds exp(0 - max) to the denominator (rows whose length is a power of two
#      have no padding and pass)
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, out_ptr, columns, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < columns
    x = tl.load(x_ptr + row * columns + offs, mask=mask, other=0.0)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * columns + offs, e / tl.sum(e, axis=0), mask=mask)


def softmax_rows(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    _softmax_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return out
