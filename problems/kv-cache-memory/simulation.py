"""A second reference: the cache filled token by token. Each sequence appends one position per token
to every layer's K and V, and a sliding window drops the oldest once it is full; the tensors are
then built on the meta device (shapes and dtypes, no memory) and their bytes counted."""
import torch

DTYPES = {1: torch.float8_e4m3fn, 2: torch.bfloat16, 4: torch.float32}


def kv_cache_bytes(num_layers, num_heads, num_kv_heads, head_dim, seq_len, batch_size, dtype_bytes,
                   sliding_window=None):
    cached = 0
    for _ in range(seq_len):  # one generated (or prefilled) token at a time
        cached += 1
        if sliding_window is not None and cached > sliding_window:
            cached -= 1  # the rolling buffer overwrites the oldest position
    total = 0
    for _ in range(num_layers):
        for _ in ("K", "V"):
            # Query heads share the KV heads (GQA): only num_kv_heads are cached.
            tensor = torch.empty(batch_size, num_kv_heads, cached, head_dim, dtype=DTYPES[dtype_bytes], device="meta")
            total += tensor.numel() * tensor.element_size()
    return total
