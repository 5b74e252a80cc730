# expect: wrong_answer
# why: counts one tensor per layer; the cache holds both the keys and the values (factor 2)
def kv_cache_bytes(num_layers, num_heads, num_kv_heads, head_dim, seq_len, batch_size, dtype_bytes,
                   sliding_window=None):
    cached_len = seq_len if sliding_window is None else min(seq_len, sliding_window)
    return num_layers * batch_size * num_kv_heads * cached_len * head_dim * dtype_bytes
