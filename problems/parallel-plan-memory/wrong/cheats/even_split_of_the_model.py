# expect: wrong_answer
# why: the shortcut of treating a layout as an even division: the whole model's ledger (embeddings and
#      all) over tp * pp GPUs, ZeRO's shards over dp, activations of L / pp layers, the same on every
#      stage. It skips where each tensor lives: no stage holds that average (the ends carry the
#      embedding and the output projection, norms are not split, early stages hold more micro-batches)
def plan_memory(model, plan, hbm_bytes):
    L, h, f, V = model["layers"], model["hidden"], model["ffn"], model["vocab"]
    dp, tp, pp, zero, m = plan["dp"], plan["tp"], plan["pp"], plan["zero"], plan["micro_batches"]
    total = L * (4 * h * h + 2 * h * f + 2 * h) + h + V * h * (1 if model["tied_embeddings"] else 2)
    params = total // (tp * pp)
    shard = params // dp
    weights = 2 * (shard if zero >= 3 else params)
    gradients = 2 * (shard if zero >= 2 else params)
    optimizer = 12 * (shard if zero >= 1 else params)
    activations = min(pp, m) * (L // pp) * model["activation_bytes"] // tp
    stage = {"weights": weights, "gradients": gradients, "optimizer": optimizer, "activations": activations,
             "total": weights + gradients + optimizer + activations}
    return {"stages": [dict(stage) for _ in range(pp)], "peak_bytes": stage["total"],
            "fits": stage["total"] <= hbm_bytes}
