# expect: wrong_answer
# why: rotates token s by angle s * theta, i.e. positions 0..seq-1, ignoring the positions
#      given; right for a prefill from position 0, wrong for every token appended to a KV cache
import torch


def apply_rope(q, positions, base=10000.0):
    d = q.shape[-1]
    half = d // 2
    inv_freq = base ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)
    angles = torch.arange(q.shape[1], dtype=torch.float32)[:, None] * inv_freq
    cos, sin = torch.cos(angles)[None, :, None], torch.sin(angles)[None, :, None]
    x = q.to(torch.float32)
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(q.dtype)
