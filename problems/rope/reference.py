import torch


def apply_rope(q: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    d = q.shape[-1]
    half = d // 2
    # Frequencies and angles in float64: the truth (float32, as most implementations use, is
    # within the tolerance for positions below ~10**5).
    inv_freq = base ** (-torch.arange(half, dtype=torch.float64) * 2 / d)      # [half]
    angles = positions.to(torch.float64)[..., None] * inv_freq                   # [(B,) S, half]
    if angles.dim() == 2:
        angles = angles[None]                                                    # [1, S, half]
    cos = torch.cos(angles)[:, :, None, :]                                       # [B, S, 1, half]
    sin = torch.sin(angles)[:, :, None, :]
    x = q.to(torch.float64)
    x1, x2 = x[..., :half], x[..., half:]
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.to(q.dtype)
