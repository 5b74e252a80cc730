# expect: wrong_answer
# why: multiplies by max_norm / (total + 1e-6) without clamping it to 1, so gradients whose norm
#      is already below max_norm are scaled UP to max_norm; clipping only ever shrinks
import torch


def clip_grad_norm(grads, max_norm, norm_type=2.0):
    if not grads:
        return torch.tensor(0.0), []
    per_tensor = torch.stack([torch.linalg.vector_norm(g.float(), norm_type) for g in grads])
    total = torch.linalg.vector_norm(per_tensor, norm_type)
    coef = max_norm / (total + 1e-6)
    return total, [(g.float() * coef).to(g.dtype) for g in grads]
