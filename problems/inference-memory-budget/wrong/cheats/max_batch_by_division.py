# expect: wrong_answer
# why: computes the largest batch in closed form, (memory - weights - activations) // the cache of
#      one sequence, with the activations of the batch it was asked about: but the decode logits
#      grow with the batch, so the activations at the largest batch are not those; the budget has to
#      be checked at the batch it reports
import math


def inference_memory_budget(config, batch, context_len, tp=1, weight_bits=16, group_size=128, kv_bytes=2,
                            block_size=16, prefill_chunk=2048, gpu_bytes=80 * 10**9, utilization=0.9):
    d, hd = config["hidden"], config["head_dim"]
    nh, nkv, ff, vocab = config["heads"] // tp, max(config["kv_heads"] // tp, 1), config["intermediate"] // tp, config["vocab"] // tp

    def lin(o, i):
        return o * i * weight_bits // 8 + (o * math.ceil(i / group_size) * 2 if weight_bits < 16 else 0)

    layer = lin(nh * hd, d) + 2 * lin(nkv * hd, d) + lin(d, nh * hd) + 2 * lin(ff, d) + lin(d, ff) + 4 * d
    weights = config["layers"] * layer + 2 * d + vocab * d * 2 * (1 if config["tied_embeddings"] else 2)
    tok = config["layers"] * 2 * nkv * hd * kv_bytes
    blocks = -(-context_len // block_size)
    seq = blocks * block_size * tok
    q, a = (nh + 2 * nkv) * hd, nh * hd
    peak = 2 * prefill_chunk * (d + max(d + q, q + a, a + d, d + 2 * ff, 3 * ff, ff + d))
    activations = max(peak, batch * config["vocab"] * 4)
    total = weights + batch * seq + activations
    most = max(int((gpu_bytes * utilization - weights - activations) // seq), 0)
    return {"weights": weights, "kv_cache": batch * seq, "kv_fragmentation": batch * (blocks * block_size - context_len) * tok,
            "activations": activations, "total": total, "max_batch": most}
