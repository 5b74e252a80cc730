# expect: wrong_answer
# why: converts the positions to q's dtype before multiplying; bfloat16 has 8 significant bits,
#      so above 256 integers are rounded (1001 -> 1000, 4095 -> 4096) and late tokens get
#      another token's rotation. Exact for fp32 inputs and short prefixes
import torch


def apply_rope(q, positions, base=10000.0):
    d = q.shape[-1]
    half = d // 2
    inv_freq = base ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)
    angles = positions.to(q.dtype).to(torch.float32)[..., None] * inv_freq
    if angles.dim() == 2:
        angles = angles[None]
    cos, sin = torch.cos(angles)[:, :, None], torch.sin(angles)[:, :, None]
    x = q.to(torch.float32)
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(q.dtype)
