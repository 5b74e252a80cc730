# expect: wrong_answer
# why: the old shortcut: attention over the keys at hand, then one logaddexp with a single part (the
#      first, as the shared prefix used to be the only one) instead of merging every part. The other
#      splits' keys are not here to recompute, so the parts left out are simply missing from the answer
import torch


def _split(q, k_split, v_split, lengths, scale):
    B, H, D = q.shape
    kv_head = torch.arange(H) // (H // k_split.shape[1])
    split_out, split_lse = torch.zeros(B, H, D), torch.full((B, H), float("-inf"))
    for b in range(B):
        n = int(lengths[b])
        if n == 0:
            continue
        k, v = k_split[b, kv_head, :n].float(), v_split[b, kv_head, :n].float()
        s = torch.einsum("hd,hnd->hn", q[b].float(), k) * scale
        m = s.amax(-1, keepdim=True)
        p = torch.exp(s - m)
        denominator = p.sum(-1)
        split_lse[b] = m[:, 0] + torch.log(denominator)
        split_out[b] = torch.einsum("hn,hnd->hd", p, v) / denominator[:, None]
    return split_out, split_lse


def flash_decode(q, k_split, v_split, lengths, scale, parts_out, parts_lse):
    split_out, split_lse = _split(q, k_split, v_split, lengths, scale)
    prefix_lse, prefix_out = parts_lse[:, :, 0], parts_out[:, :, 0].float()
    lse = torch.logaddexp(prefix_lse, split_lse)
    safe = torch.where(torch.isfinite(lse), lse, torch.zeros_like(lse))
    out = torch.exp(prefix_lse - safe)[..., None] * prefix_out + torch.exp(split_lse - safe)[..., None] * split_out
    return split_out, split_lse, out, lse
