# expect: wrong_answer
# why: samples with torch.multinomial and torch.rand from the process's own generator instead of
#      the uniforms it is given: the verifier's randomness is an input, so that the same draws can
#      be replayed (and graded); an acceptance test against other draws is another run entirely
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


def speculative_sample(target_logits, draft_logits, draft_tokens, uniforms, temperature=1.0, top_k=0, top_p=1.0):
    p = _warp(target_logits, temperature, top_k, top_p)
    q = _warp(draft_logits, temperature, top_k, top_p)
    tokens = []
    for i, x in enumerate(draft_tokens.tolist()):
        if torch.rand((), dtype=torch.float64) < p[i, x] / q[i, x]:
            tokens.append(x)
            continue
        residual = torch.clamp(p[i] - q[i], min=0.0)
        tokens.append(int(torch.multinomial(residual, 1)))
        return p, q, i, torch.tensor(tokens)
    tokens.append(int(torch.multinomial(p[-1], 1)))
    return p, q, len(tokens) - 1, torch.tensor(tokens)
