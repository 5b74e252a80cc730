def inference_memory_budget(config: dict, batch: int, context_len: int, tp: int = 1, weight_bits: int = 16,
                            group_size: int = 128, kv_bytes: int = 2, block_size: int = 16, prefill_chunk: int = 2048,
                            gpu_bytes: int = 80 * 10**9, utilization: float = 0.9) -> dict:
    """The memory of one tensor-parallel rank serving a decoder-only model, in bytes.

    config: {"layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate", "vocab", "tied_embeddings"}
    batch sequences of context_len tokens each; tp ranks; linear layers stored in weight_bits (16, 8 or
    4, with one fp16 scale per group_size inputs per output row below 16); a paged KV cache of
    kv_bytes per value in blocks of block_size tokens; prefill in chunks of prefill_chunk tokens.

    Returns {"weights", "kv_cache", "kv_fragmentation", "activations", "total", "max_batch"}: ints;
    max_batch is the largest batch (>= 1, else 0) whose total fits in gpu_bytes * utilization.
    """
    raise NotImplementedError
