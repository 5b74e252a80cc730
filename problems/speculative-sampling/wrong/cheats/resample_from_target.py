# expect: wrong_answer
# why: after a rejection draws the replacement from the target's distribution p instead of the
#      residual max(p - q, 0): simpler, but the tokens the draft proposes too often get a second
#      chance, so the output is no longer distributed as the target's samples
import torch


def _warp(logits, temperature, top_k, top_p):
    z = logits / temperature
    order = torch.sort(z, dim=-1, descending=True, stable=True).indices
    ranked = torch.softmax(torch.gather(z, -1, order), dim=-1)
    if top_k > 0:
        ranked[..., top_k:] = 0.0
        ranked = ranked / ranked.sum(dim=-1, keepdim=True)
    ranked = torch.where(torch.cumsum(ranked, dim=-1) - ranked < top_p, ranked, 0.0)
    return torch.zeros_like(ranked).scatter(-1, order, ranked / ranked.sum(dim=-1, keepdim=True))


def _draw(probs, u):
    return int(torch.searchsorted(torch.cumsum(probs, dim=0), u, right=True))


def speculative_sample(target_logits, draft_logits, draft_tokens, uniforms, temperature=1.0, top_k=0, top_p=1.0):
    p = _warp(target_logits, temperature, top_k, top_p)
    q = _warp(draft_logits, temperature, top_k, top_p)
    tokens = []
    for i, x in enumerate(draft_tokens.tolist()):
        if uniforms[i] < p[i, x] / q[i, x]:
            tokens.append(x)
            continue
        tokens.append(_draw(p[i], uniforms[-1]))
        return p, q, i, torch.tensor(tokens)
    tokens.append(_draw(p[-1], uniforms[-1]))
    return p, q, len(tokens) - 1, torch.tensor(tokens)
