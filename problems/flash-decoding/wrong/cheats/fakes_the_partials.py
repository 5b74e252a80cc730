# expect: wrong_answer
# why: the shortcut of attending densely (one softmax over the whole cache, merged with the prefix)
#      and reporting made-up partials: every split gets the whole output and lse - log(num_splits), which
#      merge back to the right total. The splits are the point of flash-decoding, and they are graded
import math

import torch


def flash_decode(q, k_cache, v_cache, lengths, num_splits, scale, prefix_out, prefix_lse):
    B, H, D = q.shape
    kv_head = torch.arange(H) // (H // k_cache.shape[1])
    split_out = torch.zeros(B, H, num_splits, D)
    split_lse = torch.full((B, H, num_splits), float("-inf"))
    out, lse = torch.zeros(B, H, D), torch.full((B, H), float("-inf"))
    for b in range(B):
        n = int(lengths[b])
        k, v = k_cache[b, kv_head, :n].float(), v_cache[b, kv_head, :n].float()
        s = torch.einsum("hd,hnd->hn", q[b].float(), k) * scale
        own_lse = torch.logsumexp(s, -1)
        own_out = torch.einsum("hn,hnd->hd", torch.softmax(s, -1), v) if n else torch.zeros(H, D)
        if n:
            split_out[b] = own_out[:, None, :].expand(H, num_splits, D)
            split_lse[b] = (own_lse - math.log(num_splits))[:, None].expand(H, num_splits)
        total = torch.logaddexp(prefix_lse[b], own_lse)
        safe = torch.where(torch.isfinite(total), total, torch.zeros_like(total))
        out[b] = torch.exp(prefix_lse[b] - safe)[:, None] * prefix_out[b].float() \
            + torch.exp(own_lse - safe)[:, None] * own_out
        lse[b] = total
    return split_out, split_lse, out, lse
