# expect: wrong_answer
# why: uses theta_i = base ** (-i / d) for i in 0..d/2-1 instead of base ** (-2i / d): the
#      frequencies only fall to base ** -0.5 instead of ~1/base, so the slow dimensions that
#      carry long-range position rotate far too fast
import torch


def apply_rope(q, positions, base=10000.0):
    d = q.shape[-1]
    half = d // 2
    inv_freq = base ** (-torch.arange(half, dtype=torch.float32) / d)
    angles = positions.to(torch.float32)[..., None] * inv_freq
    if angles.dim() == 2:
        angles = angles[None]
    cos, sin = torch.cos(angles)[:, :, None], torch.sin(angles)[:, :, None]
    x = q.to(torch.float32)
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(q.dtype)
