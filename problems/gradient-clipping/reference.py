import torch


def clip_grad_norm(grads: list, max_norm: float, norm_type: float = 2.0):
    if len(grads) == 0:
        return torch.tensor(0.0), []
    # As torch.nn.utils.clip_grad_norm_: the norm of each tensor, then the norm of those norms,
    # here in float32 whatever the gradients' dtype (an fp16 square overflows at |g| >= 256).
    # An empty tensor's norm is 0 for every p (torch refuses the inf norm of no elements: max has no identity).
    per_tensor = torch.stack([torch.linalg.vector_norm(g.to(torch.float32), norm_type) if g.numel() else
                              torch.tensor(0.0) for g in grads])
    total = torch.linalg.vector_norm(per_tensor, norm_type)
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    return total, [(g.to(torch.float32) * coef).to(g.dtype) for g in grads]
