# expect: wrong_answer
# why: merges the parts with exp(lse) as it is: a log-sum-exp near 100 overflows float32 (exp(89) is
#      already inf), and inf / inf is NaN; the largest lse must be subtracted first, as in online-softmax
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


def _merge(parts_out, parts_lse):
    w = torch.exp(parts_lse)
    total = w.sum(-1)
    out = (w[..., None] * parts_out).sum(2) / torch.where(total > 0, total, torch.ones_like(total))[..., None]
    return out, torch.log(total)


def flash_decode(q, k_split, v_split, lengths, scale, parts_out, parts_lse):
    split_out, split_lse = _split(q, k_split, v_split, lengths, scale)
    out, lse = _merge(torch.cat([parts_out.float(), split_out[:, :, None]], 2),
                      torch.cat([parts_lse, split_lse[:, :, None]], 2))
    return split_out, split_lse, out, lse
