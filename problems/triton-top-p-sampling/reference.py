import torch


def top_p_sample(logits, temperature, top_p, uniforms):
    """Rank by probability (ties: lower id first), keep each token whose mass ranked above it is below top_p,
    draw the first kept token in id order whose cumulative kept mass exceeds u times the kept total."""
    probs = torch.softmax(logits / temperature[:, None], dim=-1)
    ranked, order = torch.sort(probs, dim=-1, descending=True, stable=True)   # stable: equal ones keep id order
    above = torch.cumsum(ranked, dim=-1) - ranked
    kept_ranked = (above < top_p[:, None]) & (ranked > 0)
    kept = torch.zeros_like(kept_ranked).scatter(-1, order, kept_ranked)
    cdf = torch.cumsum(torch.where(kept, probs, 0.0), dim=-1)
    target = uniforms[:, None] * cdf[:, -1:]
    return (cdf <= target).sum(dim=-1)   # the first index whose cdf exceeds the target
