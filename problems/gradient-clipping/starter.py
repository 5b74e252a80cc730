

def clip_grad_norm(grads: list, max_norm: float, norm_type: float = 2.0):
    """Clip a list of gradient tensors by their global norm, as torch.nn.utils.clip_grad_norm_.

    grads: list of tensors (float32, float16 or bfloat16, any shapes; may be empty)
    max_norm: float > 0
    norm_type: p >= 1, or float("inf") for the largest absolute value

    total_norm = the p-norm of all gradients taken together, computed in float32
    coef = min(max_norm / (total_norm + 1e-6), 1.0)

    Return (total_norm as a 0-dim float32 tensor, [g * coef for g in grads]), each clipped
    gradient in its own dtype and shape. Do not modify the input tensors: return new ones.
    """
    raise NotImplementedError
