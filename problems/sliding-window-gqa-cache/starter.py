import torch


def sliding_window_gqa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                       k_cache: torch.Tensor, v_cache: torch.Tensor, start_pos: int, window: int,
                       softmax_scale: float | None = None) -> torch.Tensor:
    """Attention of a chunk of new tokens over a rolling sliding-window KV cache (GQA).

    q: [Hq, T, D] the queries of the T new tokens, at positions start_pos .. start_pos + T - 1
    k, v: [Hkv, T, D] their keys and values; Hkv divides Hq, query heads h of a group share KV head
          h // (Hq // Hkv)
    k_cache, v_cache: [Hkv, window, D] rolling buffers: position p lives in slot p % window; they
          hold the last min(start_pos, window) positions before the chunk; other slots were never written
    A query at position i sees the keys at positions i - window < j <= i, scaled by softmax_scale
    (1 / sqrt(D) when None).

    Returns out [Hq, T, D], and leaves in k_cache and v_cache the buffers after the chunk's tokens
    were appended (slots never written keep their contents).
    """
    raise NotImplementedError
