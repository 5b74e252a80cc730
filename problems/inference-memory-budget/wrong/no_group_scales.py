# expect: wrong_answer
# why: counts quantized weights at weight_bits per weight and forgets their scales: one fp16 per group
#      of group_size inputs, per output row (3% on top of 4-bit weights with groups of 128)
import math


def inference_memory_budget(config, batch, context_len, tp=1, weight_bits=16, group_size=128, kv_bytes=2,
                            block_size=16, prefill_chunk=2048, gpu_bytes=80 * 10**9, utilization=0.9):
    L, d, hd = config["layers"], config["hidden"], config["head_dim"]
    nh = config["heads"] // tp
    nkv = config["kv_heads"] // tp if config["kv_heads"] >= tp else 1
    ff = config["intermediate"] // tp
    V = config["vocab"] // tp

    def lin(o, i):
        b = o * i * weight_bits // 8
        return b

    per_layer = lin(nh * hd, d) + 2 * lin(nkv * hd, d) + lin(d, nh * hd) + 2 * lin(ff, d) + lin(d, ff) + 4 * d
    weights = L * per_layer + 2 * d + V * d * 2 * (1 if config["tied_embeddings"] else 2)

    tok = L * 2 * nkv * hd * kv_bytes
    nblocks = math.ceil(context_len / block_size)
    seq = nblocks * block_size * tok

    T = prefill_chunk
    sizes = dict(x=T * d, h=T * d, qkv=T * (nh + 2 * nkv) * hd, a=T * nh * hd, o=T * d, gu=T * 2 * ff, m=T * ff, dn=T * d)
    live = {"x"}
    peak = 0
    for new, free in [("h", None), ("qkv", "h"), ("a", "qkv"), ("o", "a"), (None, "o"), ("h", None), ("gu", "h"),
                      ("m", "gu"), ("dn", "m"), (None, "dn")]:
        if new:
            live.add(new)
        peak = max(peak, 2 * sum(sizes[n] for n in live))
        if free:
            live.discard(free)

    def act(b):
        return max(peak, b * config["vocab"] * 4)

    limit = gpu_bytes * utilization
    mb = 0
    while weights + (mb + 1) * seq + act(mb + 1) <= limit:
        mb += 1
    return {"weights": weights, "kv_cache": batch * seq, "kv_fragmentation": batch * (nblocks * block_size - context_len) * tok,
            "activations": act(batch), "total": weights + batch * seq + act(batch), "max_batch": mb}
