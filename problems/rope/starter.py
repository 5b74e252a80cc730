import torch


def apply_rope(q: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Rotary position embedding, half-split (GPT-NeoX / LLaMA) convention.

    q: [batch, seq, heads, head_dim], head_dim even; float32, float16 or bfloat16
    positions: int64, [seq] (shared by the batch) or [batch, seq]: the absolute position of
               each token (a KV cache's new tokens start after the cached ones)
    With d = head_dim, half = d // 2, theta_i = base ** (-2i / d) for i in 0..half-1, and the
    angle p * theta_i for a token at position p:
        out[..., i]        = x[..., i] * cos - x[..., i + half] * sin
        out[..., i + half] = x[..., i + half] * cos + x[..., i] * sin
    Compute in float32 (or float64) and return q's shape and dtype. q must not be modified.
    """
    raise NotImplementedError
