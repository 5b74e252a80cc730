import torch


def flash_decode(q, k_split, v_split, lengths, scale, parts_out, parts_lse):
    B, H, D = q.shape
    group = H // k_split.shape[1]  # query heads per KV head
    split_out = torch.zeros(B, H, D)
    split_lse = torch.full((B, H), float("-inf"))
    for b in range(B):
        n = int(lengths[b])
        if n:  # an empty split keeps zeros and -inf
            k = k_split[b, :, :n].float().repeat_interleave(group, dim=0)  # [H, n, D]: positions past n are padding
            v = v_split[b, :, :n].float().repeat_interleave(group, dim=0)
            scores = torch.einsum("hd,hnd->hn", q[b].float(), k) * scale
            split_lse[b] = torch.logsumexp(scores, dim=-1)
            split_out[b] = torch.einsum("hn,hnd->hd", torch.softmax(scores, dim=-1), v)
    # The whole: every part's output weighted by its share of one softmax denominator. The other parts'
    # keys are not here: only their (output, lse) are. (A bf16 part output is promoted exactly.)
    all_lse = torch.cat([parts_lse, split_lse[:, :, None]], dim=2)
    all_out = torch.cat([parts_out.float(), split_out[:, :, None]], dim=2)
    lse = torch.logsumexp(all_lse, dim=2)
    seen = torch.isfinite(lse)
    weights = torch.exp(all_lse - torch.where(seen, lse, 0.0)[:, :, None])  # exp(-inf) = 0 for empty parts
    out = torch.where(seen[:, :, None], (weights[..., None] * all_out).sum(dim=2), 0.0)  # nothing: zeros
    return split_out, split_lse, out, lse
