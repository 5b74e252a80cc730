# expect: wrong_answer
# why: the padding slip: both means of dx are divided by the padded block (the next power of two) instead of
#      the D real columns; right only when D is a power of two
import torch
import triton
import triton.language as tl

# Absolute: `kata run` and `kata bench` load this file as a solution module, outside its package.
from infrakata.kernels.bf16 import bf16_bits, bf16_bits_view

MAX_COLUMNS = 16384  # a whole row lives in one program's registers
MAX_GROUPS = 256  # programs of the first kernel: the second kernel reduces this many partial rows at most
MIN_ROWS_PER_GROUP = 4  # fewer, longer programs: each partial row costs a write and a read
BLOCK_GROUPS, BLOCK_COLUMNS = 8, 1024


@triton.jit
def _dx_partials_kernel(x_ptr, weight_ptr, dy_ptr, mean_ptr, rstd_ptr, dx_ptr, dw_part_ptr, db_part_ptr,
                        rows, columns, rows_per_group, BLOCK: tl.constexpr):
    group = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < columns
    weight = tl.load(weight_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros((BLOCK,), tl.float32)
    db = tl.zeros((BLOCK,), tl.float32)
    first = group.to(tl.int64) * rows_per_group
    for i in range(0, tl.minimum(rows_per_group, rows - first)):
        row = first + i
        offs = row * columns + cols
        # bf16 is widened before any arithmetic: bf16 arithmetic is wrong in the Triton interpreter.
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        rstd = tl.load(rstd_ptr + row)
        x_hat = (x - tl.load(mean_ptr + row)) * rstd
        g = dy * weight  # padded lanes: dy = 0, so they add nothing to either mean
        dx = (g - x_hat * (tl.sum(g * x_hat, axis=0) / BLOCK) - tl.sum(g, axis=0) / BLOCK) * rstd
        tl.store(dx_ptr + offs, bf16_bits(dx), mask=mask)
        dw += dy * x_hat
        db += dy
    tl.store(dw_part_ptr + group * columns + cols, dw, mask=mask)
    tl.store(db_part_ptr + group * columns + cols, db, mask=mask)


@triton.jit
def _sum_partials_kernel(dw_part_ptr, db_part_ptr, dw_ptr, db_ptr, groups, columns,
                         BLOCK_G: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    dw = tl.zeros((BLOCK_G, BLOCK_N), tl.float32)
    db = tl.zeros((BLOCK_G, BLOCK_N), tl.float32)
    for start in range(0, groups, BLOCK_G):
        g = start + tl.arange(0, BLOCK_G)
        mask = (g[:, None] < groups) & (cols[None, :] < columns)
        offs = g[:, None] * columns + cols[None, :]
        dw += tl.load(dw_part_ptr + offs, mask=mask, other=0.0)
        db += tl.load(db_part_ptr + offs, mask=mask, other=0.0)
    tl.store(dw_ptr + cols, tl.sum(dw, axis=0), mask=cols < columns)
    tl.store(db_ptr + cols, tl.sum(db, axis=0), mask=cols < columns)


def layernorm_backward(x: torch.Tensor, weight: torch.Tensor, grad_out: torch.Tensor, mean: torch.Tensor,
                       rstd: torch.Tensor):
    """LayerNorm's gradients from bf16 x, weight, grad_out and the forward's fp32 mean and rstd per row
    -> (dx bf16 [N, D], dweight fp32 [D], dbias fp32 [D])."""
    rows, columns = x.shape
    if columns > MAX_COLUMNS:
        raise ValueError(f"rows of {columns} elements; this kernel holds a row in registers, at most {MAX_COLUMNS}")
    x, weight, grad_out, mean, rstd = (t.contiguous() for t in (x, weight, grad_out, mean, rstd))
    rows_per_group = max(MIN_ROWS_PER_GROUP, triton.cdiv(rows, MAX_GROUPS))
    groups = triton.cdiv(rows, rows_per_group)
    dx = torch.empty_like(x)
    dw_part = torch.empty(groups, columns, dtype=torch.float32, device=x.device)
    db_part = torch.empty_like(dw_part)
    block = triton.next_power_of_2(columns)
    _dx_partials_kernel[(groups,)](x, weight, grad_out, mean, rstd, bf16_bits_view(dx), dw_part, db_part, rows,
                                   columns, rows_per_group, BLOCK=block,
                                   num_warps=4 if block <= 2048 else 8 if block <= 8192 else 16)
    dweight = torch.empty(columns, dtype=torch.float32, device=x.device)
    dbias = torch.empty_like(dweight)
    grid = (triton.cdiv(columns, BLOCK_COLUMNS),)
    _sum_partials_kernel[grid](dw_part, db_part, dweight, dbias, groups, columns, BLOCK_G=BLOCK_GROUPS,
                               BLOCK_N=BLOCK_COLUMNS, num_warps=8)
    return dx, dweight, dbias
