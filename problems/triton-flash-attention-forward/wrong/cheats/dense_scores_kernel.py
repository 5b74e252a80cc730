# expect: forbidden
# why: the unfused computation: a Triton kernel writes the whole S x S score matrix to memory, and eager
#      torch takes its softmax and log-sum-exp (Tensor.softmax, Tensor.logsumexp: forbidden) before a second
#      kernel would multiply by v. Materialising the scores is what flash attention exists to avoid
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _scores_kernel(q_ptr, k_ptr, s_ptr, seq, head_dim, scale, BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    cols, dims = tl.arange(0, BLOCK_S), tl.arange(0, BLOCK_D)
    q = tl.load(q_ptr + (bh * seq + row) * head_dim + dims, mask=dims < head_dim, other=0.0).to(tl.float32)
    k = tl.load(k_ptr + (bh * seq + cols[:, None]) * head_dim + dims[None, :],
                mask=(cols[:, None] < seq) & (dims[None, :] < head_dim), other=0.0).to(tl.float32)
    tl.store(s_ptr + (bh * seq + row) * seq + cols, tl.sum(k * q[None, :], axis=1) * scale, mask=cols < seq)


@triton.jit
def _weighted_sum_kernel(p_ptr, v_ptr, out_ptr, seq, head_dim, BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    cols, dims = tl.arange(0, BLOCK_S), tl.arange(0, BLOCK_D)
    p = tl.load(p_ptr + (bh * seq + row) * seq + cols, mask=cols < seq, other=0.0)
    v = tl.load(v_ptr + (bh * seq + cols[:, None]) * head_dim + dims[None, :],
                mask=(cols[:, None] < seq) & (dims[None, :] < head_dim), other=0.0).to(tl.float32)
    tl.store(out_ptr + (bh * seq + row) * head_dim + dims, tl.sum(p[:, None] * v, axis=0), mask=dims < head_dim)


def flash_attention(q, k, v, causal):
    b, h, s, d = q.shape
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    scores = torch.empty(b, h, s, s, device=q.device)
    blocks = {"BLOCK_S": triton.next_power_of_2(s), "BLOCK_D": triton.next_power_of_2(d)}
    _scores_kernel[(s, b * h)](q, k, scores, s, d, 1 / math.sqrt(d), **blocks)
    if causal:
        scores = scores.masked_fill(torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    p = scores.softmax(-1).contiguous()
    out = torch.empty(b, h, s, d, device=q.device)
    _weighted_sum_kernel[(s, b * h)](p, v, out, s, d, **blocks)
    return out, scores.logsumexp(-1)
