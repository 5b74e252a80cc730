def inference_roofline(model: dict, batch: int, prompt_len: int, gen_len: int, peak_tflops: float,
                       bandwidth_gbps: float, weight_bytes: float, kv_bytes: int) -> dict:
    """Time to first token and time per output token of a decoder under the roofline.

    model: {"layers", "hidden", "ffn", "vocab", "heads", "kv_heads", "head_dim"}.
    Return {"ttft_ms": float, "tpot_ms": float, "prefill_bound": "compute" | "memory",
            "decode_bound": "compute" | "memory", "decode_step_ms": [float, ...], "tokens_per_s": float}.
    """
    raise NotImplementedError
