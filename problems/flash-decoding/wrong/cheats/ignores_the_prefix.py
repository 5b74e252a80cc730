# expect: wrong_answer
# why: the shortcut of recomputing attention densely over the keys at hand: the splits are right,
#      but out and lse cover only the sequence's own positions. The prefix's keys are not there to
#      recompute (only its output and log-sum-exp are), so skipping the merge leaves the prefix out
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
        chunk = -(-n // num_splits)
        for j in range(num_splits):
            part = s[:, j * chunk:(j + 1) * chunk]
            if part.shape[1]:
                split_lse[b, :, j] = torch.logsumexp(part, -1)
                split_out[b, :, j] = torch.einsum("hn,hnd->hd", torch.softmax(part, -1), v[:, j * chunk:(j + 1) * chunk])
        if n:
            lse[b] = torch.logsumexp(s, -1)
            out[b] = torch.einsum("hn,hnd->hd", torch.softmax(s, -1), v)
    return split_out, split_lse, out, lse
