def kv_cache_bytes(num_layers: int, num_heads: int, num_kv_heads: int, head_dim: int,
                   seq_len: int, batch_size: int, dtype_bytes: int,
                   sliding_window: int | None = None) -> int:
    # Per layer the cache holds K and V, each [batch, num_kv_heads, cached_len, head_dim].
    # num_heads (query heads) does not enter: GQA query heads share the KV heads.
    cached_len = seq_len if sliding_window is None else min(seq_len, sliding_window)
    per_tensor = batch_size * num_kv_heads * cached_len * head_dim * dtype_bytes
    return 2 * num_layers * per_tensor
