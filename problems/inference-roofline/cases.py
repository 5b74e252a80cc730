import random


def _compute_over_memory(model, batch, prompt_len, gen_len, peak_tflops, bandwidth_gbps, weight_bytes, kv_bytes):
    """FLOP time over byte time, for the prefill and for the last decode step: the two passes whose bound
    is reported."""
    L, h = model["layers"], model["hidden"]
    q_width, kv_width = model["heads"] * model["head_dim"], model["kv_heads"] * model["head_dim"]
    body = L * (2 * h * q_width + 2 * h * kv_width + 3 * h * model["ffn"])
    head = h * model["vocab"]
    weights, kv, pair = (body + head) * weight_bytes, 2 * L * kv_width * kv_bytes, 4 * L * q_width
    prefill = (2 * body * batch * prompt_len + 2 * head * batch + pair * batch * prompt_len * (prompt_len + 1) // 2,
               weights + kv * batch * prompt_len)
    last = prompt_len + gen_len - 1
    decode = (2 * (body + head) * batch + pair * batch * last, weights + kv * batch * last)
    return [(flops / peak_tflops / 1e12) / (moved / bandwidth_gbps / 1e9) for flops, moved in (prefill, decode)]


def fresh(seed):
    """A random decoder (MHA, GQA or MQA), batch, prompt and generation lengths, weight and cache bytes and
    device, kept away from the exact compute/memory crossover where the reported bound would be a tie."""
    rng = random.Random(seed)
    while True:
        kv_heads = rng.choice([1, 2, 4, 8, 16, 32])
        model = {"layers": rng.randint(1, 80), "hidden": rng.choice([8, 64, 2048, 4096, 8192, rng.randint(8, 8192)]),
                 "ffn": rng.randint(16, 32768), "vocab": rng.randint(10, 160_000),
                 "heads": kv_heads * rng.choice([1, 2, 4, 8]), "kv_heads": kv_heads,
                 "head_dim": rng.choice([4, 32, 64, 128, 256, rng.randint(1, 256)])}
        # The simulation walks every prompt position of every layer: keep that to about 10^5 steps.
        args = (model, rng.choice([1, rng.randint(1, 64), rng.randint(1, 2048)]),
                rng.choice([1, rng.randint(1, 512), rng.randint(1, max(1, 100_000 // model["layers"]))]),
                rng.choice([2, rng.randint(2, 40), rng.randint(2, 300)]),
                rng.choice([989.0, 1979.0, 312.0, 120.0, round(rng.uniform(0.001, 2000.0), 3)]),
                rng.choice([3350.0, 2039.0, 900.0, 4800.0, round(rng.uniform(0.5, 8000.0), 2)]),
                rng.choice([0.5, 1, 2, 4]), rng.choice([1, 2, 4]))
        if all(abs(ratio - 1) > 1e-6 for ratio in _compute_over_memory(*args)):
            return {"args": args}
