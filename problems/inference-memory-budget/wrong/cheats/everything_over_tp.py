# expect: wrong_answer
# why: the rule of thumb "each of the tp ranks holds 1/tp of the model and of the cache": the norms
#      are replicated on every rank, and with more ranks than KV heads each rank keeps a whole head,
#      so the cache per rank stops shrinking; dividing the totals of one GPU by tp misses both
import math


def _one_gpu(config, weight_bits, group_size):
    d, hd, ff = config["hidden"], config["head_dim"], config["intermediate"]
    nh, nkv = config["heads"], config["kv_heads"]

    def lin(o, i):
        return o * i * weight_bits // 8 + (o * math.ceil(i / group_size) * 2 if weight_bits < 16 else 0)

    layer = lin(nh * hd, d) + 2 * lin(nkv * hd, d) + lin(d, nh * hd) + 2 * lin(ff, d) + lin(d, ff) + 4 * d
    heads = 1 if config["tied_embeddings"] else 2
    return config["layers"] * layer + 2 * d + config["vocab"] * d * 2 * heads


def inference_memory_budget(config, batch, context_len, tp=1, weight_bits=16, group_size=128, kv_bytes=2,
                            block_size=16, prefill_chunk=2048, gpu_bytes=80 * 10**9, utilization=0.9):
    weights = _one_gpu(config, weight_bits, group_size) // tp
    tok = config["layers"] * 2 * config["kv_heads"] * config["head_dim"] * kv_bytes // tp
    blocks = -(-context_len // block_size)
    seq = blocks * block_size * tok
    d, hd = config["hidden"], config["head_dim"]
    nh, nkv, ff = config["heads"] // tp, max(config["kv_heads"] // tp, 1), config["intermediate"] // tp
    q, a = (nh + 2 * nkv) * hd, nh * hd
    peak = 2 * prefill_chunk * (d + max(d + q, q + a, a + d, d + 2 * ff, 3 * ff, ff + d))

    def total(b):
        return weights + b * seq + max(peak, b * config["vocab"] * 4)

    most = 0
    while total(most + 1) <= gpu_bytes * utilization:
        most += 1
    return {"weights": weights, "kv_cache": batch * seq, "kv_fragmentation": batch * (blocks * block_size - context_len) * tok,
            "activations": max(peak, batch * config["vocab"] * 4), "total": total(batch), "max_batch": most}
