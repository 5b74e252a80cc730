# expect: wrong_answer
# why: skips the activations: reserves a flat 10% of the weights for them, a common rule of thumb,
#      instead of following the tensors of a layer's forward and the decode logits. The temporaries
#      of a prefill chunk grow with the chunk, the logits with the batch and the vocabulary
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
    activations = weights // 10
    most = 0
    while weights + (most + 1) * seq + activations <= gpu_bytes * utilization:
        most += 1
    return {"weights": weights, "kv_cache": batch * seq, "kv_fragmentation": batch * (blocks * block_size - context_len) * tok,
            "activations": activations, "total": weights + batch * seq + activations, "max_batch": most}
