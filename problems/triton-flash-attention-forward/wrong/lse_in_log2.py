# expect: wrong_answer
# why: the kernel works in base 2 (exp2, with log2(e) folded into the scale) and stores that internal
#      log-sum-exp as it is: log2 of the sum instead of its natural log (out is right, lse is not)
import math

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 64, 64
MAX_HEAD_DIM = 128  # a query tile and an accumulator of BLOCK_M x head_dim live in registers


@triton.jit
def _attention_kernel(q_ptr, k_ptr, v_ptr, out_ptr, lse_ptr, heads, seq, head_dim, scale_log2,
                      sq_b, sq_h, sq_s, sk_b, sk_h, sk_s, sv_b, sv_h, sv_s, so_b, so_h, so_s,
                      CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    block = tl.program_id(0)
    bh = tl.program_id(1)
    b, h = (bh // heads).to(tl.int64), (bh % heads).to(tl.int64)
    rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, BLOCK_D)
    cols0 = tl.arange(0, BLOCK_N)
    # The last dimension is contiguous (the wrapper makes it so); padded head dims read 0 and add nothing.
    q = tl.load(q_ptr + b * sq_b + h * sq_h + rows[:, None] * sq_s + dims[None, :],
                mask=(rows[:, None] < seq) & (dims[None, :] < head_dim), other=0.0)
    m = tl.full((BLOCK_M,), -float("inf"), tl.float32)
    denom = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)
    # A causal program's last visible key is its last row: later tiles are skipped whole.
    end = tl.minimum(seq, (block + 1) * BLOCK_M) if CAUSAL else seq
    for start in range(0, end, BLOCK_N):
        cols = start + cols0
        k = tl.load(k_ptr + b * sk_b + h * sk_h + cols[None, :] * sk_s + dims[:, None],
                    mask=(cols[None, :] < seq) & (dims[:, None] < head_dim), other=0.0)
        s = tl.dot(q, k) * scale_log2  # fp16 tiles, fp32 scores
        # A padded key would score 0, not -inf: mask it out of the softmax, as the future keys.
        visible = cols[None, :] < seq
        if CAUSAL:
            visible = visible & (cols[None, :] <= rows[:, None])
        s = tl.where(visible, s, -float("inf"))
        # Finite from the first tile on: key 0 is visible to every row.
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp2(m - m_new)
        p = tl.exp2(s - m_new[:, None])
        denom = denom * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + b * sv_b + h * sv_h + cols[:, None] * sv_s + dims[None, :],
                    mask=(cols[:, None] < seq) & (dims[None, :] < head_dim), other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m = m_new
    tl.store(out_ptr + b * so_b + h * so_h + rows[:, None] * so_s + dims[None, :], acc / denom[:, None],
             mask=(rows[:, None] < seq) & (dims[None, :] < head_dim))
    tl.store(lse_ptr + bh.to(tl.int64) * seq + rows, m + tl.log2(denom), mask=rows < seq)


def flash_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool):
    """softmax(q @ k^T / sqrt(D)) @ v per head for fp16 [B, H, S, D] inputs -> (out fp32, lse fp32 [B, H, S])."""
    batch, heads, seq, head_dim = q.shape
    if head_dim > MAX_HEAD_DIM:
        raise ValueError(f"head_dim {head_dim}; this kernel keeps a query tile in registers, at most {MAX_HEAD_DIM}")
    q, k, v = (t if t.stride(-1) == 1 else t.contiguous() for t in (q, k, v))
    out = torch.empty(q.shape, dtype=torch.float32, device=q.device)
    lse = torch.empty(batch, heads, seq, dtype=torch.float32, device=q.device)
    grid = (triton.cdiv(seq, BLOCK_M), batch * heads)
    _attention_kernel[grid](q, k, v, out, lse, heads, seq, head_dim, math.log2(math.e) / math.sqrt(head_dim),
                            *q.stride()[:3], *k.stride()[:3], *v.stride()[:3], *out.stride()[:3],
                            CAUSAL=causal, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                            BLOCK_D=max(16, triton.next_power_of_2(head_dim)), num_warps=4, num_stages=2)
    return out, lse
