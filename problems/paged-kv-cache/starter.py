def paged_kv_cache(num_blocks: int, block_size: int, dim: int, ops: list) -> dict:
    """A paged KV cache: a pool of num_blocks blocks of block_size rows of dim float32 values, a block
    table per sequence, a free queue, reference counts and copy on write.

    ops: ("append", seq, rows [n, dim]) | ("fork", parent, child) | ("free", seq) | ("gather", seq).
    Return {"log": [one entry per op], "block_tables": {seq: [block, ...]}, "free_blocks": [block, ...],
            "pool": tensor [num_blocks, block_size, dim]}.
    """
    raise NotImplementedError
