# expect: wrong_answer
# why: sizes the cache with num_heads (the query heads) instead of num_kv_heads: right for
#      multi-head attention (Llama-2-7B), 4x too big for Llama-3-8B whose 32 query heads share 8 KV heads
def kv_cache_bytes(num_layers, num_heads, num_kv_heads, head_dim, seq_len, batch_size, dtype_bytes,
                   sliding_window=None):
    cached_len = seq_len if sliding_window is None else min(seq_len, sliding_window)
    return 2 * num_layers * batch_size * num_heads * cached_len * head_dim * dtype_bytes
