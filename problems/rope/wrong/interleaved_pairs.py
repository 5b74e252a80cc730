# expect: wrong_answer
# why: rotates adjacent pairs (x[2i], x[2i+1]), the GPT-J / original RoFormer convention,
#      instead of the half-split pairs (x[i], x[i + d/2]) of GPT-NeoX and LLaMA; both are valid
#      RoPEs, but a checkpoint trained with one gives garbage attention with the other
import torch


def apply_rope(q, positions, base=10000.0):
    d = q.shape[-1]
    inv_freq = base ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)
    angles = positions.to(torch.float32)[..., None] * inv_freq
    if angles.dim() == 2:
        angles = angles[None]
    cos, sin = torch.cos(angles)[:, :, None], torch.sin(angles)[:, :, None]
    x = q.to(torch.float32)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = torch.stack([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).flatten(-2)
    return out.to(q.dtype)
