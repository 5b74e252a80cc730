# expect: wrong_answer
# why: clips the caller's tensors in place (g.mul_(coef), as torch's clip_grad_norm_ does to
#      p.grad) and returns them; the values are right, but this function's contract is to return
#      clipped copies and leave the inputs unchanged
import torch


def clip_grad_norm(grads, max_norm, norm_type=2.0):
    if not grads:
        return torch.tensor(0.0), []
    per_tensor = torch.stack([torch.linalg.vector_norm(g.float(), norm_type) for g in grads])
    total = torch.linalg.vector_norm(per_tensor, norm_type)
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.copy_((g.float() * coef).to(g.dtype))
    return total, grads
