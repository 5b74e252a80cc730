# expect: wrong_answer
# why: always scales the scores by 1 / sqrt(D) and ignores softmax_scale
import torch


def ring_attention(q, k, v, world_size, causal=False, softmax_scale=None):
    H, S, D = q.shape
    P = world_size
    scale = D ** -0.5
    pos = torch.arange(S).tensor_split(P)
    qs, ks, vs = q.tensor_split(P, dim=1), k.tensor_split(P, dim=1), v.tensor_split(P, dim=1)
    held = list(zip(ks, vs, pos))  # what each rank holds now: its own KV chunk and its positions
    outs = [torch.zeros_like(c) for c in qs]
    lses = [torch.full(c.shape[:2], float("-inf"), dtype=q.dtype) for c in qs]
    steps = torch.empty(P, H, S, dtype=q.dtype)
    for t in range(P):
        for r in range(P):
            kb, vb, kpos = held[r]
            s = qs[r] @ kb.transpose(1, 2) * scale
            if causal:
                s = s.masked_fill(kpos[None, None, :] > pos[r][None, :, None], float("-inf"))
            m = torch.maximum(lses[r], s.amax(dim=-1) if s.shape[-1] else lses[r])
            shift = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
            p = torch.exp(s - shift[..., None])
            alpha = torch.exp(lses[r] - shift)
            total = alpha + p.sum(-1)
            outs[r] = (outs[r] * alpha[..., None] + p @ vb) / torch.where(total > 0, total, 1)[..., None]
            lses[r] = torch.where(total > 0, shift + torch.log(total), torch.full_like(total, float("-inf")))
            steps[t, :, pos[r]] = lses[r]
        held = [held[(r - 1) % P] for r in range(P)]  # send to r + 1, receive from r - 1
    return torch.cat(outs, dim=1), torch.cat(lses, dim=1), steps
