# expect: wrong_answer
# why: keeps every micro-batch's activations on every stage, as GPipe does; 1F1B starts a
#      backward as soon as it can, so stage i never holds more than pp - i micro-batches
def plan_memory(model: dict, plan: dict, hbm_bytes: int) -> dict:
    L, h, f, V = model["layers"], model["hidden"], model["ffn"], model["vocab"]
    dp, tp, pp, zero, m = plan["dp"], plan["tp"], plan["pp"], plan["zero"], plan["micro_batches"]
    vocab_rows = -(-V // tp)  # the vocabulary padded to a multiple of tp, split over the tp ranks
    # Per layer and tp rank: QKV, attention output, MLP up and down split by tp; two norms whole.
    per_layer = (3 * h * h + h * h + f * h + h * f) // tp + 2 * h
    stages = []
    for i in range(pp):
        layers = L // pp + (1 if i < L % pp else 0)
        params = layers * per_layer
        if i == 0:
            params += vocab_rows * h  # the embedding
        if i == pp - 1:
            params += h  # the final norm
            if not model["tied_embeddings"] or pp > 1:
                params += vocab_rows * h  # the output projection (a copy of the embedding when tied)
        shard = -(-params // dp)  # ZeRO flattens the GPU's parameters and pads them to a multiple of dp
        weights = 2 * (shard if zero >= 3 else params)
        gradients = 2 * (shard if zero >= 2 else params)
        optimizer = 12 * (shard if zero >= 1 else params)
        in_flight = m
        activations = in_flight * layers * model["activation_bytes"] // tp
        stages.append({"weights": weights, "gradients": gradients, "optimizer": optimizer,
                       "activations": activations,
                       "total": weights + gradients + optimizer + activations})
    peak = max(s["total"] for s in stages)
    return {"stages": stages, "peak_bytes": peak, "fits": peak <= hbm_bytes}
