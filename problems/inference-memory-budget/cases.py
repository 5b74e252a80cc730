import random

LLAMA2_7B = {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 32, "head_dim": 128, "intermediate": 11008,
             "vocab": 32000, "tied_embeddings": False}
LLAMA3_8B = {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128, "intermediate": 14336,
             "vocab": 128256, "tied_embeddings": False}
LLAMA3_70B = {"layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8, "head_dim": 128, "intermediate": 28672,
              "vocab": 128256, "tied_embeddings": False}
SMALL_TIED = {"layers": 24, "hidden": 896, "heads": 14, "kv_heads": 2, "head_dim": 64, "intermediate": 4864,
              "vocab": 151936, "tied_embeddings": True}
ATTENTION_HEAVY = {"layers": 4, "hidden": 256, "heads": 16, "kv_heads": 16, "head_dim": 64, "intermediate": 256,
                   "vocab": 5000, "tied_embeddings": True}
TINY = {"layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2, "head_dim": 16, "intermediate": 192, "vocab": 1000,
        "tied_embeddings": False}


def _case(name, config, batch, context_len, **kwargs):
    return {"name": name, "args": (dict(config), batch, context_len), "kwargs": kwargs}


def cases():
    return [
        _case("Llama-2-7B, bf16, batch 8 x 4096 tokens on one 80 GB GPU", LLAMA2_7B, 8, 4096),
        _case("Llama-3-8B (GQA), batch 32 x 1000 tokens: the last block of each sequence part empty",
              LLAMA3_8B, 32, 1000),
        _case("Llama-3-70B over TP 8 (one KV head per rank), fp8 cache, blocks of 32", LLAMA3_70B, 64, 8200,
              tp=8, kv_bytes=1, block_size=32),
        _case("Llama-3-70B over TP 16: more ranks than KV heads, each rank keeps one", LLAMA3_70B, 16, 32768,
              tp=16),
        _case("Llama-3-70B on one GPU: 4-bit weights in groups of 128, 0.95 of the memory", LLAMA3_70B, 4, 16384,
              weight_bits=4, utilization=0.95),
        _case("Llama-3-70B over TP 4, 4-bit weights in groups of 32", LLAMA3_70B, 16, 4096, tp=4, weight_bits=4,
              group_size=32),
        _case("Llama-3-8B, 8-bit weights in groups of 64, on a 24 GB GPU", LLAMA3_8B, 2, 8192, weight_bits=8,
              group_size=64, gpu_bytes=24 * 10**9),
        _case("Llama-2-7B in bf16 on a 12 GB GPU: not even one sequence fits", LLAMA2_7B, 1, 2048,
              gpu_bytes=12 * 10**9),
        _case("a small model with tied embeddings: 512 sequences, the decode logits outgrow a prefill chunk",
              SMALL_TIED, 512, 300, prefill_chunk=512),
        _case("prefill chunks of 8192 tokens: the MLP's temporaries", LLAMA3_8B, 1, 100, prefill_chunk=8192),
        _case("attention-heavy (MLP as wide as the model): the QKV projection sets the peak", ATTENTION_HEAVY, 2, 100,
              prefill_chunk=64, gpu_bytes=10**8),
        _case("a tiny model: 3 sequences of 1 token, blocks of 16, chunks of 4 tokens", TINY, 3, 1, prefill_chunk=4,
              gpu_bytes=10**6, utilization=0.5),
        _case("a tiny model on exactly the bytes 5 sequences need: the fifth fits, with not a byte to spare", TINY,
              3, 1, prefill_chunk=4, gpu_bytes=493728, utilization=1.0),
        # Group sizes that divide no input width: each row's last group is shorter and still gets its scale.
        _case("Llama-3-8B, 4-bit weights in groups of 96: 4096 and 14336 inputs leave a short last group",
              LLAMA3_8B, 4, 4096, weight_bits=4, group_size=96),
        _case("a tiny model, 8-bit weights in groups of 40: rows of 64 and 192 inputs end in groups of 24 and 32",
              TINY, 2, 33, weight_bits=8, group_size=40, prefill_chunk=4, gpu_bytes=10**6),
    ]


def _random_config(rng, tp):
    """A random decoder whose sizes obey the statement's divisibility rules for `tp` ranks (every input width
    even, so that 4-bit weights pack two to a byte)."""
    kv_heads = rng.choice([1, 2, 4, 8, 16, 32])
    heads = kv_heads * rng.choice([1, 2, 4, 8])
    while heads % tp:
        heads *= 2
    head_dim = rng.choice([16, 32, 64, 80, 96, 128, 256])
    return {"layers": rng.randint(1, 80), "hidden": 2 * rng.randint(8, 4096), "heads": heads, "kv_heads": kv_heads,
            "head_dim": head_dim, "intermediate": 2 * tp * rng.randint(4, 16384 // tp),
            "vocab": tp * rng.randint(max(1, 1000 // tp), 160_000 // tp), "tied_embeddings": rng.random() < 0.3}


def fresh(seed):
    """A random model (GQA, MQA or MHA; tied or not) over random TP (also more ranks than KV heads), quantized
    weights and cache, blocks, chunk, batch, context and GPU size (also too small for one sequence)."""
    rng = random.Random(seed)
    tp = rng.choice([1, 1, 2, 4, 8, 16])
    config = _random_config(rng, tp)
    kwargs = {"tp": tp, "weight_bits": rng.choice([16, 8, 4]), "group_size": rng.choice([32, 64, 128, rng.randint(1, 256)]),
              "kv_bytes": rng.choice([1, 2, 4]), "block_size": rng.choice([1, 8, 16, 32, rng.randint(1, 64)]),
              "prefill_chunk": rng.choice([1, 512, 2048, rng.randint(1, 8192)]),
              "gpu_bytes": rng.choice([24 * 10**9, 40 * 10**9, 80 * 10**9, 141 * 10**9, rng.randint(10**6, 2 * 10**11)]),
              "utilization": rng.choice([0.5, 0.8, 0.9, 0.95, 1.0, round(rng.uniform(0.3, 1.0), 3)])}
    context_len = rng.choice([1, rng.randint(1, 64), rng.randint(1, 32768)])
    # The reference counts max_batch up one at a time: keep it below about 20,000 sequences.
    kv_local = max(config["kv_heads"] // tp, 1)
    per_sequence = (-(-context_len // kwargs["block_size"]) * kwargs["block_size"] * config["layers"] * 2 * kv_local
                    * config["head_dim"] * kwargs["kv_bytes"] + config["vocab"] * 4)
    kwargs["gpu_bytes"] = min(kwargs["gpu_bytes"], 20_000 * per_sequence)
    for name in rng.sample(sorted(kwargs), rng.randint(0, 3)):  # some left at their defaults
        if name != "tp" and (name != "gpu_bytes" or kwargs[name] == 80 * 10**9):
            del kwargs[name]
    return _case("fresh", config, rng.choice([1, rng.randint(1, 64), rng.randint(1, 1024)]), context_len, **kwargs)
