# expect: wrong_answer
# why: the rule of thumb "a decode step is the weights over the bandwidth": it prices decode by the
#      weights alone, skipping the KV cache each step must read (and the FLOPs of large batches). At
#      long contexts and large batches the cache outweighs the weights
def inference_roofline(model, batch, prompt_len, gen_len, peak_tflops, bandwidth_gbps, weight_bytes, kv_bytes):
    L, h, f, V = model["layers"], model["hidden"], model["ffn"], model["vocab"]
    q_width, kv_width = model["heads"] * model["head_dim"], model["kv_heads"] * model["head_dim"]
    body = L * (h * q_width + 2 * h * kv_width + q_width * h + 3 * h * f)
    head = h * V
    peak, bandwidth = peak_tflops * 1e12, bandwidth_gbps * 1e9
    weights = (body + head) * weight_bytes
    prefill_flops = (2 * body * batch * prompt_len + 2 * head * batch
                     + 4 * L * q_width * batch * prompt_len * (prompt_len + 1) // 2)
    prefill_bytes = weights + 2 * L * kv_width * kv_bytes * batch * prompt_len
    ttft = max(prefill_flops / peak, prefill_bytes / bandwidth)
    step = weights / bandwidth
    steps = [step] * (gen_len - 1)
    return {"ttft_ms": ttft * 1e3, "tpot_ms": step * 1e3,
            "prefill_bound": "memory" if prefill_bytes / bandwidth > prefill_flops / peak else "compute",
            "decode_bound": "memory", "decode_step_ms": [s * 1e3 for s in steps],
            "tokens_per_s": batch * gen_len / (ttft + sum(steps))}
