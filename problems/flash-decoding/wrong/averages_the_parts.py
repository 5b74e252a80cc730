# expect: wrong_answer
# why: merges the parts by averaging their outputs (the non-empty ones, equally): each part must weigh
#      by its share of the softmax denominator, exp(lse_i - lse), which is what the log-sum-exps are for
import torch


def flash_decode(q, k_cache, v_cache, lengths, num_splits, scale, prefix_out, prefix_lse):
    B, H, D = q.shape
    kv_head = torch.arange(H) // (H // k_cache.shape[1])
    split_out = torch.zeros(B, H, num_splits, D)
    split_lse = torch.full((B, H, num_splits), float("-inf"))
    for b in range(B):
        n = int(lengths[b])
        chunk = -(-n // num_splits)
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
    present = torch.isfinite(parts_lse).float()
    count = present.sum(-1)
    out = (present[..., None] * parts_out).sum(2) / torch.where(count > 0, count, torch.ones_like(count))[..., None]
    return split_out, split_lse, out, m[..., 0] + torch.log(total)
