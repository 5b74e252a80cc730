import torch


def paged_attention_decode(q, k_cache, v_cache, block_tables, seq_lens, scale):
    """Each sequence's one query token attends to its seq_len cached positions, read through its block table."""
    batch, q_heads, _ = q.shape
    block_size, kv_heads = k_cache.shape[1], k_cache.shape[2]
    out = torch.empty(q.shape, dtype=torch.float32, device=q.device)
    for b in range(batch):
        length = int(seq_lens[b])
        positions = torch.arange(length, device=q.device)
        blocks = block_tables[b, positions // block_size].long()
        keys = k_cache[blocks, positions % block_size].float()     # [length, Hkv, D]
        values = v_cache[blocks, positions % block_size].float()
        keys = keys.repeat_interleave(q_heads // kv_heads, dim=1)   # query head h reads KV head h // group
        values = values.repeat_interleave(q_heads // kv_heads, dim=1)
        scores = torch.einsum("hd,lhd->hl", q[b].float(), keys) * scale
        out[b] = torch.einsum("hl,lhd->hd", torch.softmax(scores, dim=-1), values)
    return out
