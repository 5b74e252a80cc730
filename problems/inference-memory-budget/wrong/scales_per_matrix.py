# expect: wrong_answer
# why: counts one scale per group_size weights of the whole matrix, not per group of each row: the short
#      last group of every row shares a scale with the next row's first
def _linear_bytes(out_features, in_features, weight_bits, group_size):
    weights = out_features * in_features * weight_bits // 8
    if weight_bits < 16:  # one fp16 scale per group of group_size inputs, per output row
        weights += -(-out_features * in_features // group_size) * 2
    return weights


def inference_memory_budget(config, batch, context_len, tp=1, weight_bits=16, group_size=128, kv_bytes=2,
                            block_size=16, prefill_chunk=2048, gpu_bytes=80 * 10**9, utilization=0.9):
    layers, hidden, head_dim = config["layers"], config["hidden"], config["head_dim"]
    heads = config["heads"] // tp
    kv_heads = max(config["kv_heads"] // tp, 1)  # fewer KV heads than ranks: each rank keeps a copy of one
    inter = config["intermediate"] // tp
    vocab = config["vocab"] // tp  # vocab-parallel embedding and LM head

    # Weights of one rank: the linear layers in weight_bits, the rest in 16 bits.
    linear = (_linear_bytes(heads * head_dim, hidden, weight_bits, group_size)
              + 2 * _linear_bytes(kv_heads * head_dim, hidden, weight_bits, group_size)
              + _linear_bytes(hidden, heads * head_dim, weight_bits, group_size)
              + 2 * _linear_bytes(inter, hidden, weight_bits, group_size)
              + _linear_bytes(hidden, inter, weight_bits, group_size))
    weights = layers * (linear + 2 * hidden * 2) + hidden * 2 + vocab * hidden * 2
    if not config["tied_embeddings"]:
        weights += vocab * hidden * 2

    # The paged KV cache: every sequence holds whole blocks of block_size tokens.
    per_token = layers * 2 * kv_heads * head_dim * kv_bytes
    blocks = -(-context_len // block_size)

    # Activations: the live 16-bit tensors of one layer over a prefill chunk (x, the residual
    # stream, is alive throughout), or a decode step's float32 logits over the whole vocabulary.
    t = prefill_chunk * 2
    qkv, attn = (heads + 2 * kv_heads) * head_dim, heads * head_dim
    layer_peak = t * (hidden + max(hidden + qkv, qkv + attn, attn + hidden, hidden + 2 * inter, 3 * inter,
                                   inter + hidden))

    def budget(b):
        kv_cache = b * blocks * block_size * per_token
        activations = max(layer_peak, b * config["vocab"] * 4)
        return kv_cache, activations, weights + kv_cache + activations

    kv_cache, activations, total = budget(batch)
    most = 0
    while budget(most + 1)[2] <= gpu_bytes * utilization:
        most += 1
    return {"weights": weights, "kv_cache": kv_cache,
            "kv_fragmentation": batch * (blocks * block_size - context_len) * per_token,
            "activations": activations, "total": total, "max_batch": most}
