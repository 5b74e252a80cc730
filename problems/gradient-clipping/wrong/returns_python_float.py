# expect: wrong_answer
# why: returns total_norm as a Python float (total.item()); the numbers are right, but the statement
#      fixes a 0-dim float32 tensor, as torch's clip_grad_norm_ returns it
import torch


def clip_grad_norm(grads, max_norm, norm_type=2.0):
    if not grads:
        return 0.0, []
    per_tensor = torch.stack([torch.linalg.vector_norm(g.float(), norm_type) for g in grads])
    total = torch.linalg.vector_norm(per_tensor, norm_type)
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    return total.item(), [(g.float() * coef).to(g.dtype) for g in grads]
