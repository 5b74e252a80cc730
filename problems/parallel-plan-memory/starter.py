def plan_memory(model: dict, plan: dict, hbm_bytes: int) -> dict:
    """The bytes one GPU of each pipeline stage holds for a model under a DP x TP x PP x ZeRO layout.

    model: {"layers", "hidden", "ffn", "vocab", "tied_embeddings", "activation_bytes"}
    plan:  {"dp", "tp", "pp", "zero", "micro_batches"}
    Return {"stages": [{"weights", "gradients", "optimizer", "activations", "total"} per stage, in order],
            "peak_bytes": int, "fits": bool}: ints in bytes, fits when the peak is at most hbm_bytes.
    """
    raise NotImplementedError
