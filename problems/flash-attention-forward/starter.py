

def flash_attention_forward(q, k, v, causal, block_q, block_k):
    """FlashAttention-2 forward pass, tile by tile, with an online softmax.

    q, k, v: [B, H, S, D], all fp32 or all fp16 (fp16 is accumulated in fp32)
    causal: if True, query i attends to keys 0..i only
    block_q, block_k: tile sizes Br and Bc (S need not be a multiple of either)

    scores = q @ k^T / sqrt(D). For each query tile of block_q rows, visit the key tiles of
    block_k columns in order, keeping per row a running max m, a running sum l of exp(s - m) and
    an unnormalised output acc; rescale l and acc by exp(m_old - m_new) when m grows. With
    causal=True, skip the key tiles that lie entirely in the future of every row of the tile.

    Returns (out, lse):
      out: [B, H, S, D] in q's dtype, softmax(scores) @ v
      lse: [B, H, S] fp32, the natural-log log-sum-exp of each row of scores (m + log l)
    q, k, v must not be modified. torch.softmax, scaled_dot_product_attention and torch.logsumexp are
    forbidden (by any name), and the S x S scores of the largest case do not fit its memory limit.
    """
    raise NotImplementedError
