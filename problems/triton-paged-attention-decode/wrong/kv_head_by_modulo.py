# expect: wrong_answer
# why: maps query head h to KV head h % Hkv instead of h // (Hq // Hkv): with more than one KV head and
#      groups of more than one, query heads read another head's keys and values
import torch
import triton
import triton.language as tl


@triton.jit
def _paged_attention_kernel(q_ptr, k_ptr, v_ptr, tables_ptr, lens_ptr, out_ptr, scale, group, head_dim,
                            stride_qb, stride_qh, stride_kb, stride_ks, stride_kh, stride_vb, stride_vs, stride_vh,
                            stride_tb, stride_ob, stride_oh, BLOCK_SIZE: tl.constexpr, BLOCK_G: tl.constexpr,
                            BLOCK_D: tl.constexpr):
    seq, kv_head = tl.program_id(0).to(tl.int64), tl.program_id(1)
    length = tl.load(lens_ptr + seq)
    g = tl.arange(0, BLOCK_G)
    d = tl.arange(0, BLOCK_D)
    s = tl.arange(0, BLOCK_SIZE)
    heads = g * tl.num_programs(1) + kv_head
    gd_mask = (g[:, None] < group) & (d[None, :] < head_dim)
    q = tl.load(q_ptr + seq * stride_qb + heads[:, None] * stride_qh + d[None, :], mask=gd_mask, other=0.0)
    q = q.to(tl.float32) * scale
    m = tl.full((BLOCK_G,), -float("inf"), dtype=tl.float32)
    total = tl.zeros((BLOCK_G,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_G, BLOCK_D), dtype=tl.float32)
    for start in range(0, length, BLOCK_SIZE):
        # Only the table's first cdiv(length, BLOCK_SIZE) entries are read: they are block numbers.
        block = tl.load(tables_ptr + seq * stride_tb + start // BLOCK_SIZE).to(tl.int64)
        sd_mask = (start + s[:, None] < length) & (d[None, :] < head_dim)
        k = tl.load(k_ptr + block * stride_kb + s[:, None] * stride_ks + kv_head * stride_kh + d[None, :],
                    mask=sd_mask, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + block * stride_vb + s[:, None] * stride_vs + kv_head * stride_vh + d[None, :],
                    mask=sd_mask, other=0.0).to(tl.float32)
        scores = tl.sum(q[:, None, :] * k[None, :, :], axis=2)  # [BLOCK_G, BLOCK_SIZE]
        scores = tl.where(start + s[None, :] < length, scores, -float("inf"))
        m_new = tl.maximum(m, tl.max(scores, axis=1))
        alpha = tl.exp(m - m_new)  # rescales what was summed under the old max (exp(-inf) = 0 at the start)
        p = tl.exp(scores - m_new[:, None])
        total = total * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.sum(p[:, :, None] * v[None, :, :], axis=1)
        m = m_new
    out = acc / total[:, None]
    tl.store(out_ptr + seq * stride_ob + heads[:, None] * stride_oh + d[None, :], out, mask=gd_mask)


def paged_attention_decode(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_tables: torch.Tensor,
                           seq_lens: torch.Tensor, scale: float) -> torch.Tensor:
    """Attention of one query token per sequence over its paged keys and values -> [B, Hq, D] fp32."""
    batch, q_heads, head_dim = q.shape
    block_size, kv_heads = k_cache.shape[1], k_cache.shape[2]
    if q.stride(2) != 1 or k_cache.stride(3) != 1 or v_cache.stride(3) != 1:
        raise ValueError("the head dimension of q, k_cache and v_cache must be contiguous")
    group = q_heads // kv_heads
    out = torch.empty(batch, q_heads, head_dim, dtype=torch.float32, device=q.device)
    _paged_attention_kernel[(batch, kv_heads)](
        q, k_cache, v_cache, block_tables, seq_lens, out, scale, group, head_dim, q.stride(0), q.stride(1),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2), v_cache.stride(0), v_cache.stride(1),
        v_cache.stride(2), block_tables.stride(0), out.stride(0), out.stride(1), BLOCK_SIZE=block_size,
        BLOCK_G=triton.next_power_of_2(group), BLOCK_D=triton.next_power_of_2(head_dim))
    return out
