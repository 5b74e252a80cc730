# expect: wrong_answer
# why: skips the merge: returns the attention over this split's keys as the whole, as a dense
#      recomputation would if it had every key. The other splits and the prefix arrive only as
#      (output, lse), so without the merge they are left out
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
    return split_out, split_lse, split_out.clone(), split_lse.clone()
