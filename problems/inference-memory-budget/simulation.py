"""A second reference: one rank's memory built tensor by tensor on the meta device (shapes and dtypes,
no memory). The weights are the layers' actual storage (int4 packed two to a byte, fp16 group
scales), the KV cache is a pool of blocks handed to each sequence as its tokens arrive, the
activations are a run of one layer's forward over a prefill chunk with a live set of tensors (and a
decode step's logits), and the largest batch is found by bisection."""
import torch

HALF = torch.bfloat16


def _nbytes(tensor):
    return tensor.numel() * tensor.element_size()


def _meta(*shape, dtype=HALF):
    return torch.empty(*shape, dtype=dtype, device="meta")


def _linear(out_features, in_features, bits, group_size):
    if bits == 16:
        return [_meta(out_features, in_features)]
    if bits == 8:
        codes = _meta(out_features, in_features, dtype=torch.int8)
    else:  # 4-bit codes, two per byte
        codes = _meta(out_features, in_features // 2, dtype=torch.uint8)
    groups = (in_features + group_size - 1) // group_size
    return [codes, _meta(out_features, groups, dtype=torch.float16)]


def _weights(c, tp, bits, group_size):
    heads, kv, inter, vocab = c["heads"] // tp, max(c["kv_heads"] // tp, 1), c["intermediate"] // tp, c["vocab"] // tp
    d, hd = c["hidden"], c["head_dim"]
    tensors = [_meta(vocab, d), _meta(d)]  # embedding (vocab-parallel), final norm
    if not c["tied_embeddings"]:
        tensors.append(_meta(vocab, d))  # LM head
    for _ in range(c["layers"]):
        tensors += [_meta(d), _meta(d)]  # the two norms
        for out_f, in_f in ((heads * hd, d), (kv * hd, d), (kv * hd, d), (d, heads * hd), (inter, d), (inter, d),
                            (d, inter)):
            tensors += _linear(out_f, in_f, bits, group_size)
    return sum(_nbytes(t) for t in tensors)


def _sequence_cache(c, tp, context_len, kv_bytes, block_size):
    """(bytes held, bytes holding no token) of one sequence's blocks, appended token by token."""
    kv = max(c["kv_heads"] // tp, 1)
    dtype = {1: torch.float8_e4m3fn, 2: HALF, 4: torch.float32}[kv_bytes]
    block = _meta(c["layers"], 2, block_size, kv, c["head_dim"], dtype=dtype)  # K and V of block_size tokens
    held = filled = 0
    tokens_in_last_block = block_size  # the first token needs a block
    for _ in range(context_len):
        if tokens_in_last_block == block_size:
            held += _nbytes(block)
            tokens_in_last_block = 0
        tokens_in_last_block += 1
        filled += _nbytes(block) // block_size
    return held, held - filled


def _layer_peak(c, tp, chunk):
    heads, kv, inter = c["heads"] // tp, max(c["kv_heads"] // tp, 1), c["intermediate"] // tp
    d, hd = c["hidden"], c["head_dim"]
    live = {"x": _meta(chunk, d)}
    peak = 0
    steps = [("h", (chunk, d), []), ("qkv", (chunk, (heads + 2 * kv) * hd), ["h"]), ("a", (chunk, heads * hd), ["qkv"]),
             ("o", (chunk, d), ["a"]), (None, None, ["o"]), ("h", (chunk, d), []), ("gu", (chunk, 2 * inter), ["h"]),
             ("m", (chunk, inter), ["gu"]), ("d", (chunk, d), ["m"]), (None, None, ["d"])]
    for name, shape, freed in steps:
        if name is not None:
            live[name] = _meta(*shape)
        peak = max(peak, sum(_nbytes(t) for t in live.values()))
        for gone in freed:
            del live[gone]
    return peak


def inference_memory_budget(config, batch, context_len, tp=1, weight_bits=16, group_size=128, kv_bytes=2,
                            block_size=16, prefill_chunk=2048, gpu_bytes=80 * 10**9, utilization=0.9):
    weights = _weights(config, tp, weight_bits, group_size)
    layer_peak = _layer_peak(config, tp, prefill_chunk)
    per_sequence, empty = _sequence_cache(config, tp, context_len, kv_bytes, block_size)

    def total(b):
        logits = _nbytes(_meta(b, config["vocab"], dtype=torch.float32))
        return weights + b * per_sequence + max(layer_peak, logits)

    kv_cache, waste = batch * per_sequence, batch * empty  # every sequence holds blocks of its own
    low, high = 0, 1
    while total(high) <= gpu_bytes * utilization:
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if total(middle) <= gpu_bytes * utilization else (low, middle)
    logits = _nbytes(_meta(batch, config["vocab"], dtype=torch.float32))
    return {"weights": weights, "kv_cache": kv_cache, "kv_fragmentation": waste,
            "activations": max(layer_peak, logits), "total": weights + kv_cache + max(layer_peak, logits),
            "max_batch": low}
