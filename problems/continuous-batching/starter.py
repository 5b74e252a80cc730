def continuous_batching(requests: list, num_blocks: int, block_size: int, max_batch: int,
                        max_step_tokens: int) -> dict:
    """Schedule requests step by step under a KV-cache budget of num_blocks blocks of block_size tokens.

    requests: [{"id": str, "arrival": int, "prompt": int, "output": int}, ...]
    Return {"steps": [{"prefill": [id, ...], "decode": [id, ...], "preempted": [id, ...],
                       "finished": [id, ...], "free_blocks": int, "tokens": int}, ...],
            "requests": {id: {"first_token_step": int, "finish_step": int, "preemptions": int}}}.
    """
    raise NotImplementedError
