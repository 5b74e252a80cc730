# expect: wrong_answer
# why: when a window is given, caches the whole window even if the sequence is shorter (a
#      preallocated rolling buffer is not the bytes in use); only a window longer than the sequence exposes it
def kv_cache_bytes(num_layers, num_heads, num_kv_heads, head_dim, seq_len, batch_size, dtype_bytes,
                   sliding_window=None):
    cached_len = sliding_window if sliding_window else seq_len
    return 2 * num_layers * batch_size * num_kv_heads * cached_len * head_dim * dtype_bytes
