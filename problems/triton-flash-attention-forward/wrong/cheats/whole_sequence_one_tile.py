# expect: forbidden
# why: no streaming: each query tile loads every key and value of the sequence in one tile (BLOCK_N = S rounded
#      up to a power of two) and takes a plain softmax over it. Right numbers, but the max_tile rule refuses it
import math

import torch
import triton
import triton.language as tl

BLOCK_M = 64


@triton.jit
def _attention_kernel(q_ptr, k_ptr, v_ptr, out_ptr, lse_ptr, heads, seq, head_dim, scale,
                      sq_b, sq_h, sq_s, sk_b, sk_h, sk_s, sv_b, sv_h, sv_s, so_b, so_h, so_s,
                      CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    block = tl.program_id(0)
    bh = tl.program_id(1)
    b, h = (bh // heads).to(tl.int64), (bh % heads).to(tl.int64)
    rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    dims = tl.arange(0, BLOCK_D)
    q = tl.load(q_ptr + b * sq_b + h * sq_h + rows[:, None] * sq_s + dims[None, :],
                mask=(rows[:, None] < seq) & (dims[None, :] < head_dim), other=0.0)
    # Every key of the head at once: the whole row of scores is in one tile, so no running max is needed.
    k = tl.load(k_ptr + b * sk_b + h * sk_h + cols[None, :] * sk_s + dims[:, None],
                mask=(cols[None, :] < seq) & (dims[:, None] < head_dim), other=0.0)
    s = tl.dot(q, k) * scale
    visible = cols[None, :] < seq
    if CAUSAL:
        visible = visible & (cols[None, :] <= rows[:, None])
    s = tl.where(visible, s, -float("inf"))
    m = tl.max(s, axis=1)
    p = tl.exp(s - m[:, None])
    denom = tl.sum(p, axis=1)
    v = tl.load(v_ptr + b * sv_b + h * sv_h + cols[:, None] * sv_s + dims[None, :],
                mask=(cols[:, None] < seq) & (dims[None, :] < head_dim), other=0.0)
    out = tl.dot(p.to(tl.float16), v) / denom[:, None]
    tl.store(out_ptr + b * so_b + h * so_h + rows[:, None] * so_s + dims[None, :], out,
             mask=(rows[:, None] < seq) & (dims[None, :] < head_dim))
    tl.store(lse_ptr + bh.to(tl.int64) * seq + rows, m + tl.log(denom), mask=rows < seq)


def flash_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool):
    batch, heads, seq, head_dim = q.shape
    out = torch.empty(q.shape, dtype=torch.float32, device=q.device)
    lse = torch.empty(batch, heads, seq, dtype=torch.float32, device=q.device)
    grid = (triton.cdiv(seq, BLOCK_M), batch * heads)
    _attention_kernel[grid](q, k, v, out, lse, heads, seq, head_dim, 1 / math.sqrt(head_dim),
                            *q.stride()[:3], *k.stride()[:3], *v.stride()[:3], *out.stride()[:3],
                            CAUSAL=causal, BLOCK_M=BLOCK_M, BLOCK_N=max(16, triton.next_power_of_2(seq)),
                            BLOCK_D=max(16, triton.next_power_of_2(head_dim)))
    return out, lse
