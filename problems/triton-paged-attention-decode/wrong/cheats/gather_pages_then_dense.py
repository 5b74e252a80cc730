# expect: forbidden
# why: two Triton kernels: the first copies each sequence's pages of K and V into dense [B, max_len, Hkv, D]
#      buffers, the second runs dense decode attention over them. Right numbers, but the whole cache goes through
#      memory once more every step: the traffic rule refuses stores well past the bytes of the call's outputs
import torch
import triton
import triton.language as tl


@triton.jit
def _gather_pages_kernel(k_ptr, v_ptr, tables_ptr, lens_ptr, dense_k_ptr, dense_v_ptr, head_dim, stride_kb,
                         stride_ks, stride_kh, stride_vb, stride_vs, stride_vh, stride_tb, stride_db, stride_ds,
                         stride_dh, BLOCK_SIZE: tl.constexpr, BLOCK_D: tl.constexpr):
    # One program per (sequence, page of its table, KV head): the page copied to its place in the dense buffer.
    seq, page, kv_head = tl.program_id(0).to(tl.int64), tl.program_id(1), tl.program_id(2)
    length = tl.load(lens_ptr + seq)
    used = page * BLOCK_SIZE < length
    # The table's entries past the last page are no block numbers: a page past the end reads entry 0 instead.
    block = tl.load(tables_ptr + seq * stride_tb + tl.where(used, page, 0)).to(tl.int64)
    s = tl.arange(0, BLOCK_SIZE)[:, None]
    d = tl.arange(0, BLOCK_D)[None, :]
    mask = (page * BLOCK_SIZE + 0 * s < length) & (d < head_dim)  # [BLOCK_SIZE, BLOCK_D]: the page is used
    k = tl.load(k_ptr + block * stride_kb + s * stride_ks + kv_head * stride_kh + d, mask=mask, other=0.0)
    v = tl.load(v_ptr + block * stride_vb + s * stride_vs + kv_head * stride_vh + d, mask=mask, other=0.0)
    dst = seq * stride_db + (page * BLOCK_SIZE + s) * stride_ds + kv_head * stride_dh + d
    # Pages past the sequence's end are written too (zeros), so the whole dense buffer is the kernel's.
    tl.store(dense_k_ptr + dst, k, mask=d < head_dim)
    tl.store(dense_v_ptr + dst, v, mask=d < head_dim)


@triton.jit
def _dense_decode_kernel(q_ptr, k_ptr, v_ptr, lens_ptr, out_ptr, scale, group, head_dim, stride_qb, stride_qh,
                         stride_db, stride_ds, stride_dh, stride_ob, stride_oh, BLOCK_N: tl.constexpr,
                         BLOCK_G: tl.constexpr, BLOCK_D: tl.constexpr):
    seq, kv_head = tl.program_id(0).to(tl.int64), tl.program_id(1)
    length = tl.load(lens_ptr + seq)
    g = tl.arange(0, BLOCK_G)
    d = tl.arange(0, BLOCK_D)
    n = tl.arange(0, BLOCK_N)
    heads = kv_head * group + g
    gd_mask = (g[:, None] < group) & (d[None, :] < head_dim)
    q = tl.load(q_ptr + seq * stride_qb + heads[:, None] * stride_qh + d[None, :], mask=gd_mask, other=0.0)
    q = q.to(tl.float32) * scale
    m = tl.full((BLOCK_G,), -float("inf"), dtype=tl.float32)
    total = tl.zeros((BLOCK_G,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_G, BLOCK_D), dtype=tl.float32)
    for start in range(0, length, BLOCK_N):
        rows = seq * stride_db + (start + n[:, None]) * stride_ds + kv_head * stride_dh + d[None, :]
        nd_mask = (start + n[:, None] < length) & (d[None, :] < head_dim)
        k = tl.load(k_ptr + rows, mask=nd_mask, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + rows, mask=nd_mask, other=0.0).to(tl.float32)
        scores = tl.sum(q[:, None, :] * k[None, :, :], axis=2)
        scores = tl.where(start + n[None, :] < length, scores, -float("inf"))
        m_new = tl.maximum(m, tl.max(scores, axis=1))
        alpha = tl.exp(m - m_new)
        p = tl.exp(scores - m_new[:, None])
        total = total * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.sum(p[:, :, None] * v[None, :, :], axis=1)
        m = m_new
    tl.store(out_ptr + seq * stride_ob + heads[:, None] * stride_oh + d[None, :], acc / total[:, None], mask=gd_mask)


def paged_attention_decode(q, k_cache, v_cache, block_tables, seq_lens, scale):
    batch, q_heads, head_dim = q.shape
    block_size, kv_heads = k_cache.shape[1], k_cache.shape[2]
    pages = block_tables.shape[1]
    max_len = pages * block_size  # every page the table has room for: no look at the lengths on the host
    dense_k = torch.empty(batch, max_len, kv_heads, head_dim, dtype=k_cache.dtype, device=q.device)
    dense_v = torch.empty(batch, max_len, kv_heads, head_dim, dtype=v_cache.dtype, device=q.device)
    block_d = triton.next_power_of_2(head_dim)
    _gather_pages_kernel[(batch, pages, kv_heads)](
        k_cache, v_cache, block_tables, seq_lens, dense_k, dense_v, head_dim, k_cache.stride(0), k_cache.stride(1),
        k_cache.stride(2), v_cache.stride(0), v_cache.stride(1), v_cache.stride(2), block_tables.stride(0),
        dense_k.stride(0), dense_k.stride(1), dense_k.stride(2), BLOCK_SIZE=block_size, BLOCK_D=block_d)
    group = q_heads // kv_heads
    out = torch.empty(batch, q_heads, head_dim, dtype=torch.float32, device=q.device)
    _dense_decode_kernel[(batch, kv_heads)](
        q, dense_k, dense_v, seq_lens, out, scale, group, head_dim, q.stride(0), q.stride(1), dense_k.stride(0),
        dense_k.stride(1), dense_k.stride(2), out.stride(0), out.stride(1), BLOCK_N=16,
        BLOCK_G=triton.next_power_of_2(group), BLOCK_D=block_d)
    return out
