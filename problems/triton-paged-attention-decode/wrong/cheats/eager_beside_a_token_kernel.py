# expect: forbidden
# why: launches a kernel that does nothing useful, so the call counts as a Triton launch, and computes the
#      attention with eager torch, position by position through the block table: torch.softmax (like
#      torch's GEMMs and tensor indexing) is forbidden in this problem
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


def paged_attention_decode(q, k_cache, v_cache, block_tables, seq_lens, scale):
    _touch[(1,)](seq_lens)
    batch, q_heads, _ = q.shape
    block_size, kv_heads = k_cache.shape[1], k_cache.shape[2]
    outs = []
    for b, (table, length) in enumerate(zip(block_tables.tolist(), seq_lens.tolist())):
        rows = [(table[p // block_size], p % block_size) for p in range(length)]
        keys = torch.stack([k_cache.select(0, blk).select(0, slot) for blk, slot in rows]).float()
        values = torch.stack([v_cache.select(0, blk).select(0, slot) for blk, slot in rows]).float()
        keys = keys.repeat_interleave(q_heads // kv_heads, dim=1)
        values = values.repeat_interleave(q_heads // kv_heads, dim=1)
        weights = torch.softmax((q.select(0, b).float()[:, None, :] * keys.transpose(0, 1)).sum(-1) * scale, dim=-1)
        outs.append((weights[:, :, None] * values.transpose(0, 1)).sum(1))
    return torch.stack(outs)
