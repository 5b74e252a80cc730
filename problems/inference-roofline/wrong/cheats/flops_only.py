# expect: wrong_answer
# why: the MFU shortcut: every pass takes its FLOPs over the peak. Prefill is compute-bound and comes
#      out right on long prompts, but a decode step does two FLOPs per weight it reads and is memory-
#      bound by a factor of a hundred at small batch: this is the lesson the roofline exists to teach
def inference_roofline(model, batch, prompt_len, gen_len, peak_tflops, bandwidth_gbps, weight_bytes, kv_bytes):
    L, h, f, V = model["layers"], model["hidden"], model["ffn"], model["vocab"]
    q_width, kv_width = model["heads"] * model["head_dim"], model["kv_heads"] * model["head_dim"]
    body = L * (h * q_width + 2 * h * kv_width + q_width * h + 3 * h * f)
    head = h * V
    peak = peak_tflops * 1e12
    pair = 4 * L * q_width
    ttft = (2 * body * batch * prompt_len + 2 * head * batch + pair * batch * prompt_len * (prompt_len + 1) // 2) / peak
    steps = [(2 * (body + head) * batch + pair * batch * (prompt_len + s)) / peak for s in range(1, gen_len)]
    return {"ttft_ms": ttft * 1e3, "tpot_ms": sum(steps) / len(steps) * 1e3, "prefill_bound": "compute",
            "decode_bound": "compute", "decode_step_ms": [s * 1e3 for s in steps],
            "tokens_per_s": batch * gen_len / (ttft + sum(steps))}
