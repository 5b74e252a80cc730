# expect: wrong_answer
# why: adds the compute time and the memory time; the roofline assumes they overlap (the weights of
#      the next matmul stream in while this one computes), so a pass takes the larger of the two
def inference_roofline(model: dict, batch: int, prompt_len: int, gen_len: int, peak_tflops: float,
                       bandwidth_gbps: float, weight_bytes: float, kv_bytes: int) -> dict:
    L, h, f, V = model["layers"], model["hidden"], model["ffn"], model["vocab"]
    q_width, kv_width = model["heads"] * model["head_dim"], model["kv_heads"] * model["head_dim"]
    peak, bandwidth = peak_tflops * 1e12, bandwidth_gbps * 1e9
    # Per layer: the Q, K, V and output projections and a gated MLP (gate, up, down).
    layer_params = h * q_width + 2 * h * kv_width + q_width * h + 3 * h * f
    body, head = L * layer_params, h * V
    weights = (body + head) * weight_bytes              # every pass reads every weight once
    kv_per_position = 2 * L * kv_width * kv_bytes       # K and V of one position, all layers
    attention_per_pair = 4 * L * q_width                # scores and weighted sum, one query-key pair

    def seconds(flops, bytes_moved):
        compute, memory = flops / peak, bytes_moved / bandwidth
        return compute + memory, "memory" if memory > compute else "compute"

    # Prefill: every prompt position through the body, the head only at the last position (the one
    # that samples the first token); position i attends to i + 1 positions; its K and V are written.
    tokens = batch * prompt_len
    prefill_flops = (2 * body * tokens + 2 * head * batch
                     + attention_per_pair * batch * prompt_len * (prompt_len + 1) // 2)
    ttft, prefill_bound = seconds(prefill_flops, weights + kv_per_position * tokens)
    # Decode: step s feeds the token sampled last; it reads the cache of the positions before it.
    steps, bounds = [], []
    for s in range(1, gen_len):
        cached = prompt_len + s - 1
        flops = 2 * (body + head) * batch + attention_per_pair * batch * (cached + 1)
        step, bound = seconds(flops, weights + kv_per_position * batch * (cached + 1))
        steps.append(step)
        bounds.append(bound)
    total = ttft + sum(steps)
    return {"ttft_ms": ttft * 1e3, "tpot_ms": sum(steps) / len(steps) * 1e3, "prefill_bound": prefill_bound,
            "decode_bound": bounds[-1], "decode_step_ms": [s * 1e3 for s in steps],
            "tokens_per_s": batch * gen_len / total}
