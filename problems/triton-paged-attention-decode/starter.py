# Needs Triton, which exists for Linux on x86-64 only (not macOS or Windows). Without a CUDA GPU the
# grader runs Triton kernels through the Triton interpreter.


def paged_attention_decode(q, k_cache, v_cache, block_tables, seq_lens, scale):
    """Decode attention over a paged KV cache, as one Triton kernel that reads the pages where they are.

    q: [B, Hq, D] fp16, one query token per sequence; k_cache, v_cache: [num_blocks, block_size, Hkv, D]
    fp16, the pool; block_tables: [B, max_blocks] int32 (position p of sequence b lives in block
    block_tables[b, p // block_size], slot p % block_size; entries past the sequence's last block are not
    block numbers); seq_lens: [B] int32, each >= 1; scale: float. Query head h reads KV head
    h // (Hq // Hkv). Return softmax(scale * q . k) . v over the positions 0 .. seq_len - 1 of each
    sequence, as a new [B, Hq, D] fp32 tensor; do not modify the inputs.
    """
    raise NotImplementedError
