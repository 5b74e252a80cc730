# expect: wrong_answer
# why: cuts the cache's capacity S into splits instead of the sequence's n positions, so the
#      splits of a short sequence are uneven or empty where the statement's are not (the merged
#      output is still right: only the partial results tell)
import torch


def flash_decode(q, k_cache, v_cache, lengths, num_splits, scale, prefix_out, prefix_lse):
    B, H, D = q.shape
    kv_head = torch.arange(H) // (H // k_cache.shape[1])
    split_out = torch.zeros(B, H, num_splits, D)
    split_lse = torch.full((B, H, num_splits), float("-inf"))
    for b in range(B):
        n = int(lengths[b])
        chunk = -(-k_cache.shape[2] // num_splits)
        for j in range(num_splits):
            lo, hi = j * chunk, min((j + 1) * chunk, n)
            if lo >= hi:
                continue
            k, v = k_cache[b, kv_head, lo:hi].float(), v_cache[b, kv_head, lo:hi].float()
            s = torch.einsum("hd,hnd->hn", q[b].float(), k) * scale
            m = s.amax(-1, keepdim=True)
            p = torch.exp(s - m)
            denominator = p.sum(-1)
            split_lse[b, :, j] = m[:, 0] + torch.log(denominator)
            split_out[b, :, j] = torch.einsum("hn,hnd->hd", p, v) / denominator[:, None]
    # Merge: the prefix is one more part.
    parts_lse = torch.cat([prefix_lse[:, :, None], split_lse], 2)
    parts_out = torch.cat([prefix_out.float()[:, :, None], split_out], 2)
    m = parts_lse.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    w = torch.exp(parts_lse - m)
    total = w.sum(-1)
    out = (w[..., None] * parts_out).sum(2) / torch.where(total > 0, total, torch.ones_like(total))[..., None]
    return split_out, split_lse, out, m[..., 0] + torch.log(total)
