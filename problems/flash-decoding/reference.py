import torch


def flash_decode(q, k_cache, v_cache, lengths, num_splits, scale, prefix_out, prefix_lse):
    B, H, D = q.shape
    group = H // k_cache.shape[1]  # query heads per KV head
    split_out = torch.zeros(B, H, num_splits, D)
    split_lse = torch.full((B, H, num_splits), float("-inf"))
    out = torch.zeros(B, H, D)
    lse = torch.full((B, H), float("-inf"))
    for b in range(B):
        n = int(lengths[b])
        k = k_cache[b, :, :n].float().repeat_interleave(group, dim=0)  # [H, n, D]: positions past n are padding
        v = v_cache[b, :, :n].float().repeat_interleave(group, dim=0)
        scores = torch.einsum("hd,hnd->hn", q[b].float(), k) * scale
        chunk = -(-n // num_splits)
        for j in range(num_splits):
            s, values = scores[:, j * chunk:(j + 1) * chunk], v[:, j * chunk:(j + 1) * chunk]
            if s.shape[1]:  # an empty split keeps zeros and -inf
                split_lse[b, :, j] = torch.logsumexp(s, dim=-1)
                split_out[b, :, j] = torch.einsum("hn,hnd->hd", torch.softmax(s, dim=-1), values)
        # The truth for the whole: the prefix's and the own positions' weights against one total.
        # (prefix_lse is float32; a bf16 prefix_out is promoted exactly by the float32 product.)
        total = torch.logaddexp(prefix_lse[b], torch.logsumexp(scores, dim=-1))
        merged = torch.exp(prefix_lse[b] - total)[:, None] * prefix_out[b] \
            + torch.einsum("hn,hnd->hd", torch.exp(scores - total[:, None]), v)
        out[b] = torch.where(torch.isfinite(total)[:, None], merged, 0.0)  # nothing to attend to: zeros
        lse[b] = total
    return split_out, split_lse, out, lse
