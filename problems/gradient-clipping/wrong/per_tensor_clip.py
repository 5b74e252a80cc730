# expect: wrong_answer
# why: clips each tensor by its own norm (what a per-parameter loop does by accident), so every
#      tensor is scaled differently and the returned total is the largest per-tensor norm; the
#      global norm is one number for all the gradients together
import torch


def clip_grad_norm(grads, max_norm, norm_type=2.0):
    out, norms = [], []
    for g in grads:
        n = torch.linalg.vector_norm(g.float(), norm_type)
        norms.append(n)
        out.append((g.float() * torch.clamp(max_norm / (n + 1e-6), max=1.0)).to(g.dtype))
    total = torch.stack(norms).max() if norms else torch.tensor(0.0)
    return total, out
