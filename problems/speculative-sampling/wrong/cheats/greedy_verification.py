# expect: wrong_answer
# why: greedy verification: accepts a draft token when it is the target's most likely token, and on
#      a mismatch emits that token instead. Simple and common with greedy decoding, but with
#      sampling it is not the target's distribution: tokens the target would sample with 30%
#      probability are never accepted. The acceptance test with the uniforms is what keeps it exact
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
        best = int(p[i].argmax())
        tokens.append(best)
        if x != best:
            return p, q, i, torch.tensor(tokens)
    tokens.append(int(p[-1].argmax()))
    return p, q, len(tokens) - 1, torch.tensor(tokens)
