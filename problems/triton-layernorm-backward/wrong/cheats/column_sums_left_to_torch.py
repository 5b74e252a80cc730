# expect: forbidden
# why: the unfused shortcut: a kernel writes dx and every row's dy * x_hat to an [N, D] fp32 buffer, and
#      torch sums the buffers down the rows (Tensor.sum: forbidden). Right, but the reduction across rows is
#      the half of the kata this skips, and the buffer costs a full fp32 write and read of the activations
import torch
import triton
import triton.language as tl


@triton.jit
def _rows_kernel(x_ptr, w_ptr, dy_ptr, mean_ptr, rstd_ptr, dx_ptr, dwx_ptr, dyf_ptr, columns, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < columns
    x = tl.load(x_ptr + row * columns + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * columns + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.load(rstd_ptr + row)
    x_hat = (x - tl.load(mean_ptr + row)) * rstd
    g = dy * w
    dx = (g - x_hat * (tl.sum(g * x_hat, axis=0) / columns) - tl.sum(g, axis=0) / columns) * rstd
    tl.store(dx_ptr + row * columns + cols, dx, mask=mask)
    tl.store(dwx_ptr + row * columns + cols, dy * x_hat, mask=mask)
    tl.store(dyf_ptr + row * columns + cols, dy, mask=mask)


def layernorm_backward(x, weight, grad_out, mean, rstd):
    rows, columns = x.shape
    dx, dwx, dyf = (torch.empty(rows, columns, device=x.device) for _ in range(3))
    _rows_kernel[(rows,)](x.contiguous(), weight, grad_out.contiguous(), mean, rstd, dx, dwx, dyf, columns,
                          BLOCK=triton.next_power_of_2(columns))
    return dx.to(x.dtype), dwx.sum(0), dyf.sum(0)
