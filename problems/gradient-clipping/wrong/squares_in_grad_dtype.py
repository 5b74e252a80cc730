# expect: wrong_answer
# why: sums g * g in the gradients' own dtype: fine in float32 for ordinary values, but an fp16
#      square overflows at |g| >= 256 (65504 is fp16's max), the norm becomes inf, the coefficient
#      0 and every gradient is zeroed; upcast to float32 before squaring
import torch


def clip_grad_norm(grads, max_norm, norm_type=2.0):
    if not grads:
        return torch.tensor(0.0), []
    if norm_type == float("inf"):
        total = torch.stack([g.abs().max() if g.numel() else torch.zeros((), dtype=g.dtype) for g in grads]).float().max()
    else:
        total = sum(((g.abs() ** norm_type).sum()).float() for g in grads) ** (1.0 / norm_type)
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    return total, [(g.float() * coef).to(g.dtype) for g in grads]
