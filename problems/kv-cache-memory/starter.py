def kv_cache_bytes(num_layers: int, num_heads: int, num_kv_heads: int, head_dim: int,
                   seq_len: int, batch_size: int, dtype_bytes: int,
                   sliding_window: int | None = None) -> int:
    """Bytes of a decoder's KV cache after `seq_len` tokens of each of `batch_size` sequences.

    Every layer caches K and V for its `num_kv_heads` KV heads (grouped-query attention:
    `num_heads` query heads share them), `head_dim` elements per head and position, each
    element `dtype_bytes` bytes. With `sliding_window` (an int), only the last
    `sliding_window` positions are kept; None keeps them all.

    Return an int: bytes (not GB, not GiB).
    """
    raise NotImplementedError
