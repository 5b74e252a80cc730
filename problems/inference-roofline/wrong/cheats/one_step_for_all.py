# expect: wrong_answer
# why: prices one decode step (the first, at the prompt's length) and repeats it: TPOT as a constant.
#      It skips the cache growing by one position per step, which is what makes long generations and
#      large batches slow down (and move from compute-bound to memory-bound)
def inference_roofline(model, batch, prompt_len, gen_len, peak_tflops, bandwidth_gbps, weight_bytes, kv_bytes):
    L, h, f, V = model["layers"], model["hidden"], model["ffn"], model["vocab"]
    q_width, kv_width = model["heads"] * model["head_dim"], model["kv_heads"] * model["head_dim"]
    body = L * (h * q_width + 2 * h * kv_width + q_width * h + 3 * h * f)
    head = h * V
    peak, bandwidth = peak_tflops * 1e12, bandwidth_gbps * 1e9
    weights = (body + head) * weight_bytes
    kv = 2 * L * kv_width * kv_bytes
    pair = 4 * L * q_width

    def seconds(flops, bytes_moved):
        return max(flops / peak, bytes_moved / bandwidth), \
            "memory" if bytes_moved / bandwidth > flops / peak else "compute"

    ttft, prefill_bound = seconds(2 * body * batch * prompt_len + 2 * head * batch
                                  + pair * batch * prompt_len * (prompt_len + 1) // 2,
                                  weights + kv * batch * prompt_len)
    step, bound = seconds(2 * (body + head) * batch + pair * batch * (prompt_len + 1),
                          weights + kv * batch * (prompt_len + 1))
    steps = [step] * (gen_len - 1)
    return {"ttft_ms": ttft * 1e3, "tpot_ms": step * 1e3, "prefill_bound": prefill_bound, "decode_bound": bound,
            "decode_step_ms": [s * 1e3 for s in steps], "tokens_per_s": batch * gen_len / (ttft + sum(steps))}
