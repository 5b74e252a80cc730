# expect: forbidden
# why: unfused: a first kernel writes the S x S scores to a buffer in memory, a second reads them back for the
#      softmax and p @ v. Right numbers, tile by tile, but the traffic rule refuses the scores' bytes
import math

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 64, 64


@triton.jit
def _scores_kernel(q_ptr, k_ptr, s_ptr, heads, seq, head_dim, scale, sq_b, sq_h, sq_s, sk_b, sk_h, sk_s,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    block = tl.program_id(0)
    bh = tl.program_id(1)
    b, h = (bh // heads).to(tl.int64), (bh % heads).to(tl.int64)
    rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, BLOCK_D)
    q = tl.load(q_ptr + b * sq_b + h * sq_h + rows[:, None] * sq_s + dims[None, :],
                mask=(rows[:, None] < seq) & (dims[None, :] < head_dim), other=0.0)
    s_rows = s_ptr + (bh.to(tl.int64) * seq + rows[:, None]) * seq
    for start in range(0, seq, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + b * sk_b + h * sk_h + cols[None, :] * sk_s + dims[:, None],
                    mask=(cols[None, :] < seq) & (dims[:, None] < head_dim), other=0.0)
        tl.store(s_rows + cols[None, :], tl.dot(q, k) * scale, mask=(rows[:, None] < seq) & (cols[None, :] < seq))


@triton.jit
def _output_kernel(s_ptr, v_ptr, out_ptr, lse_ptr, heads, seq, head_dim, sv_b, sv_h, sv_s, so_b, so_h, so_s,
                   CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    block = tl.program_id(0)
    bh = tl.program_id(1)
    b, h = (bh // heads).to(tl.int64), (bh % heads).to(tl.int64)
    rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, BLOCK_D)
    s_rows = s_ptr + (bh.to(tl.int64) * seq + rows[:, None]) * seq
    # First the row max over the stored scores, then the sum and p @ v against it: two passes, no rescaling.
    m = tl.full((BLOCK_M,), -float("inf"), tl.float32)
    for start in range(0, seq, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        visible = (rows[:, None] < seq) & (cols[None, :] < seq)
        if CAUSAL:
            visible = visible & (cols[None, :] <= rows[:, None])
        s = tl.load(s_rows + cols[None, :], mask=visible, other=-float("inf"))
        m = tl.maximum(m, tl.max(s, axis=1))
    m = tl.where(rows < seq, m, 0.0)  # rows past S see no key: keep them finite
    denom = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)
    for start in range(0, seq, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        visible = (rows[:, None] < seq) & (cols[None, :] < seq)
        if CAUSAL:
            visible = visible & (cols[None, :] <= rows[:, None])
        s = tl.load(s_rows + cols[None, :], mask=visible, other=-float("inf"))
        p = tl.exp(s - m[:, None])
        denom += tl.sum(p, axis=1)
        v = tl.load(v_ptr + b * sv_b + h * sv_h + cols[:, None] * sv_s + dims[None, :],
                    mask=(cols[:, None] < seq) & (dims[None, :] < head_dim), other=0.0)
        acc += tl.dot(p.to(tl.float16), v)
    denom = tl.where(rows < seq, denom, 1.0)
    tl.store(out_ptr + b * so_b + h * so_h + rows[:, None] * so_s + dims[None, :], acc / denom[:, None],
             mask=(rows[:, None] < seq) & (dims[None, :] < head_dim))
    tl.store(lse_ptr + bh.to(tl.int64) * seq + rows, m + tl.log(denom), mask=rows < seq)


def flash_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool):
    batch, heads, seq, head_dim = q.shape
    scores = torch.empty(batch * heads, seq, seq, dtype=torch.float32, device=q.device)
    out = torch.empty(q.shape, dtype=torch.float32, device=q.device)
    lse = torch.empty(batch, heads, seq, dtype=torch.float32, device=q.device)
    grid = (triton.cdiv(seq, BLOCK_M), batch * heads)
    blocks = {"BLOCK_M": BLOCK_M, "BLOCK_N": BLOCK_N, "BLOCK_D": max(16, triton.next_power_of_2(head_dim))}
    _scores_kernel[grid](q, k, scores, heads, seq, head_dim, 1 / math.sqrt(head_dim),
                         *q.stride()[:3], *k.stride()[:3], **blocks)
    _output_kernel[grid](scores, v, out, lse, heads, seq, head_dim, *v.stride()[:3], *out.stride()[:3],
                         CAUSAL=causal, **blocks)
    return out, lse
