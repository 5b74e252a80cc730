# expect: wrong_answer
# why: the shortcut "the first stage is the fullest, so size that one": it ledgers stage 0 (embedding,
#      the most micro-batches in flight) and reports it for every stage. The stages differ, and with one
#      micro-batch the last stage (output projection and final norm) is the peak
def plan_memory(model, plan, hbm_bytes):
    L, h, f, V = model["layers"], model["hidden"], model["ffn"], model["vocab"]
    dp, tp, pp, zero, m = plan["dp"], plan["tp"], plan["pp"], plan["zero"], plan["micro_batches"]
    layers = L // pp + (1 if L % pp else 0)
    params = layers * ((4 * h * h + 2 * h * f) // tp + 2 * h) + -(-V // tp) * h
    if pp == 1:
        params += h + (0 if model["tied_embeddings"] else -(-V // tp) * h)
    shard = -(-params // dp)
    weights = 2 * (shard if zero >= 3 else params)
    gradients = 2 * (shard if zero >= 2 else params)
    optimizer = 12 * (shard if zero >= 1 else params)
    activations = min(pp, m) * layers * model["activation_bytes"] // tp
    stage = {"weights": weights, "gradients": gradients, "optimizer": optimizer, "activations": activations,
             "total": weights + gradients + optimizer + activations}
    return {"stages": [dict(stage) for _ in range(pp)], "peak_bytes": stage["total"],
            "fits": stage["total"] <= hbm_bytes}
