import torch


def _warp(logits, temperature, top_k, top_p):
    """Each row of logits -> the probabilities a sampler draws from: temperature, then top-k, then top-p."""
    z = logits / temperature
    order = torch.sort(z, dim=-1, descending=True, stable=True).indices  # rank 0: the largest logit
    ranked = torch.softmax(torch.gather(z, -1, order), dim=-1)
    if top_k > 0:
        ranked[..., top_k:] = 0.0
        ranked = ranked / ranked.sum(dim=-1, keepdim=True)
    above = torch.cumsum(ranked, dim=-1) - ranked  # the probability ranked above each token
    ranked = torch.where(above < top_p, ranked, 0.0)
    ranked = ranked / ranked.sum(dim=-1, keepdim=True)
    return torch.zeros_like(ranked).scatter(-1, order, ranked)


def _draw(probs, u):
    """Inverse CDF: the first token (in id order) whose cumulative probability exceeds u."""
    return int(torch.searchsorted(torch.cumsum(probs, dim=0), u, right=True))


def speculative_sample(target_logits, draft_logits, draft_tokens, uniforms, temperature=1.0, top_k=0, top_p=1.0):
    p = _warp(target_logits, temperature, top_k, top_p)
    q = _warp(draft_logits, temperature, top_k, top_p)
    tokens = []
    for i, x in enumerate(draft_tokens.tolist()):
        if uniforms[i] < p[i, x] / q[i, x]:
            tokens.append(x)
            continue
        # Rejected: the replacement comes from what the target has and the draft under-proposed.
        residual = torch.clamp(p[i] - q[i], min=0.0)
        tokens.append(_draw(residual / residual.sum(), uniforms[-1]))
        return p, q, i, torch.tensor(tokens)
    tokens.append(_draw(p[-1], uniforms[-1]))  # every draft token accepted: one more from the target
    return p, q, len(tokens) - 1, torch.tensor(tokens)
