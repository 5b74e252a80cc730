# expect: forbidden
# why: gathers each sequence's pages into a dense [B, max_len, Hkv, D] tensor with torch first (a copy of every
#      sequence's whole cache at every step), then runs a dense attention kernel over it: tensor indexing
#      (torch.Tensor.__getitem__) is forbidden in this problem; the kernel is to read the pages where they are
import torch
import triton
import triton.language as tl


@triton.jit
def _dense_attention_kernel(q_ptr, k_ptr, v_ptr, lens_ptr, out_ptr, scale, q_heads, kv_heads, head_dim, max_len,
                            BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    b, h = tl.program_id(0).to(tl.int64), tl.program_id(1)
    kv_head = h // (q_heads // kv_heads)
    length = tl.load(lens_ptr + b)
    pos = tl.arange(0, BLOCK_L)
    d = tl.arange(0, BLOCK_D)
    mask = (pos[:, None] < length) & (d[None, :] < head_dim)
    q = tl.load(q_ptr + (b * q_heads + h) * head_dim + d, mask=d < head_dim, other=0.0).to(tl.float32) * scale
    rows = ((b * max_len + pos[:, None]) * kv_heads + kv_head) * head_dim + d[None, :]
    k = tl.load(k_ptr + rows, mask=mask, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + rows, mask=mask, other=0.0).to(tl.float32)
    scores = tl.where(pos < length, tl.sum(q[None, :] * k, axis=1), -float("inf"))
    p = tl.exp(scores - tl.max(scores, axis=0))
    out = tl.sum(p[:, None] * v, axis=0) / tl.sum(p, axis=0)
    tl.store(out_ptr + (b * q_heads + h) * head_dim + d, out, mask=d < head_dim)


def paged_attention_decode(q, k_cache, v_cache, block_tables, seq_lens, scale):
    batch, q_heads, head_dim = q.shape
    block_size, kv_heads = k_cache.shape[1], k_cache.shape[2]
    max_len = int(seq_lens.max())
    blocks = -(-max_len // block_size)
    tables = block_tables[:, :blocks].long().clamp(max=k_cache.shape[0] - 1)  # padding past the last block
    keys = k_cache[tables].reshape(batch, blocks * block_size, kv_heads, head_dim).contiguous()
    values = v_cache[tables].reshape(batch, blocks * block_size, kv_heads, head_dim).contiguous()
    out = torch.empty(batch, q_heads, head_dim, dtype=torch.float32, device=q.device)
    _dense_attention_kernel[(batch, q_heads)](q.contiguous(), keys, values, seq_lens, out, scale, q_heads, kv_heads,
                                              head_dim, blocks * block_size,
                                              BLOCK_L=triton.next_power_of_2(blocks * block_size),
                                              BLOCK_D=triton.next_power_of_2(head_dim))
    return out
