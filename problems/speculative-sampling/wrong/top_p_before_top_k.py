# expect: wrong_answer
# why: applies the nucleus (top-p) to the full distribution and top-k afterwards: the order matters,
#      since top-p measures mass in the distribution that top-k has already cut and renormalized
import torch


def warp(logits, temperature, top_k, top_p):
    out = torch.zeros_like(logits)
    for row in range(logits.shape[0]):
        z = logits[row] / temperature
        order = sorted(range(z.numel()), key=lambda t: (-float(z[t]), t))
        kept = z[order]
        probs = torch.exp(kept - kept.max())
        probs = probs / probs.sum()
        keep, above = [], 0.0
        for t, pr in zip(order, probs.tolist()):
            if above >= top_p:
                break
            keep.append(t)
            above += pr
        if top_k > 0:
            keep = keep[:top_k]
        zk = z[keep]
        pk = torch.exp(zk - zk.max())
        out[row, keep] = pk / pk.sum()
    return out


def draw(probs, u):
    c = torch.cumsum(probs, 0)
    return int((c <= u).sum())


def speculative_sample(target_logits, draft_logits, draft_tokens, uniforms, temperature=1.0, top_k=0, top_p=1.0):
    p = warp(target_logits, temperature, top_k, top_p)
    q = warp(draft_logits, temperature, top_k, top_p)
    out = []
    for i in range(draft_tokens.numel()):
        x = int(draft_tokens[i])
        if float(uniforms[i]) * float(q[i, x]) < float(p[i, x]):
            out.append(x)
        else:
            r = (p[i] - q[i]).clamp(min=0)
            out.append(draw(r / r.sum(), float(uniforms[-1])))
            return p, q, i, torch.tensor(out)
    out.append(draw(p[-1], float(uniforms[-1])))
    return p, q, draft_tokens.numel(), torch.tensor(out)
