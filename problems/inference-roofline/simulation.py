"""A second reference: the passes run matmul by matmul. Each pass lists the matmuls it performs, with
their shapes ([tokens, in] @ [in, out], and per sequence and head the attention's [1, d] @ [d, keys]
and [1, keys] @ [keys, d] for every query position), and the bytes it moves: each weight matrix read
once, each cached K and V row read, each new one written. The FLOPs of a matmul are counted as one
multiply and one add per term."""


def _matmul_flops(m, k, n):
    return 2 * m * k * n


def _layer_matrices(model):
    h, f, d = model["hidden"], model["ffn"], model["head_dim"]
    return [(h, model["heads"] * d), (h, model["kv_heads"] * d), (h, model["kv_heads"] * d),
            (model["heads"] * d, h), (h, f), (h, f), (f, h)]  # q, k, v, o, gate, up, down


def _pass(model, batch, positions, head_rows, weight_bytes, kv_bytes):
    """One forward pass of `batch` sequences over the query positions `positions` (0-based, each
    attending to itself and every earlier position), the output head at `head_rows` rows per sequence."""
    flops = 0
    bytes_moved = 0.0
    head_dim, heads, kv_heads = model["head_dim"], model["heads"], model["kv_heads"]
    rows = batch * len(positions)
    for _ in range(model["layers"]):
        for fan_in, fan_out in _layer_matrices(model):
            flops += _matmul_flops(rows, fan_in, fan_out)
            bytes_moved += fan_in * fan_out * weight_bytes
        for position in positions:
            keys = position + 1
            flops += batch * heads * (_matmul_flops(1, head_dim, keys) + _matmul_flops(1, keys, head_dim))
        cached = positions[0]  # the positions before this pass, in the cache already
        bytes_moved += batch * cached * 2 * kv_heads * head_dim * kv_bytes  # read K and V
        bytes_moved += rows * 2 * kv_heads * head_dim * kv_bytes  # write the new K and V
    flops += _matmul_flops(batch * head_rows, model["hidden"], model["vocab"])
    bytes_moved += model["hidden"] * model["vocab"] * weight_bytes
    return flops, bytes_moved


def inference_roofline(model, batch, prompt_len, gen_len, peak_tflops, bandwidth_gbps, weight_bytes, kv_bytes):
    def time(flops, bytes_moved):
        compute, memory = flops / (peak_tflops * 10 ** 12), bytes_moved / (bandwidth_gbps * 10 ** 9)
        return max(compute, memory), ("memory" if memory > compute else "compute")

    ttft, prefill_bound = time(*_pass(model, batch, list(range(prompt_len)), 1, weight_bytes, kv_bytes))
    steps = []
    for position in range(prompt_len, prompt_len + gen_len - 1):  # the sampled token goes in next
        steps.append(time(*_pass(model, batch, [position], 1, weight_bytes, kv_bytes)))
    total = ttft + sum(t for t, _ in steps)
    return {"ttft_ms": ttft * 1000, "tpot_ms": sum(t for t, _ in steps) / len(steps) * 1000,
            "prefill_bound": prefill_bound, "decode_bound": steps[-1][1],
            "decode_step_ms": [t * 1000 for t, _ in steps], "tokens_per_s": batch * gen_len / total}
