# expect: wrong_answer
# why: keeps tokens while the cumulative probability including them stays within top_p, so the
#      token that crosses top_p is dropped; nucleus sampling keeps it (the smallest set whose mass
#      reaches top_p), and a top_p below the largest probability would otherwise keep nothing
import torch


def warp(logits, temperature, top_k, top_p):
    out = torch.zeros_like(logits)
    for row in range(logits.shape[0]):
        z = logits[row] / temperature
        order = sorted(range(z.numel()), key=lambda t: (-float(z[t]), t))
        if top_k > 0:
            order = order[:top_k]
        kept = z[order]
        probs = torch.exp(kept - kept.max())
        probs = probs / probs.sum()
        keep, above = [], 0.0
        for t, pr in zip(order, probs.tolist()):
            above += pr
            if above > top_p and keep:
                break
            keep.append(t)
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
