# expect: wrong_answer
# why: attends to the split's whole capacity instead of its lengths[b] filled positions: the padding
#      past each length (filled with 1e4) takes over the softmax
import torch


def _split(q, k_split, v_split, lengths, scale):
    B, H, D = q.shape
    kv_head = torch.arange(H) // (H // k_split.shape[1])
    split_out, split_lse = torch.zeros(B, H, D), torch.full((B, H), float("-inf"))
    for b in range(B):
        n = k_split.shape[2]
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


def _merge(parts_out, parts_lse):
    m = parts_lse.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    w = torch.exp(parts_lse - m)
    total = w.sum(-1)
    out = (w[..., None] * parts_out).sum(2) / torch.where(total > 0, total, torch.ones_like(total))[..., None]
    return out, m[..., 0] + torch.log(total)


def flash_decode(q, k_split, v_split, lengths, scale, parts_out, parts_lse):
    split_out, split_lse = _split(q, k_split, v_split, lengths, scale)
    out, lse = _merge(torch.cat([parts_out.float(), split_out[:, :, None]], 2),
                      torch.cat([parts_lse, split_lse[:, :, None]], 2))
    return split_out, split_lse, out, lse
