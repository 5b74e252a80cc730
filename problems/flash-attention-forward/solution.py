import math

import torch


def flash_attention_forward(q, k, v, causal, block_q, block_k):
    # FlashAttention-2's loop: one query tile at a time, its key tiles streamed past it with an online
    # softmax, never more than a [Br, Bc] tile of scores at once.
    B, H, S, D = q.shape
    scale = 1.0 / math.sqrt(D)
    out = torch.empty(B, H, S, D, dtype=torch.float32)
    lse = torch.empty(B, H, S, dtype=torch.float32)
    for qs in range(0, S, block_q):
        qe = min(qs + block_q, S)
        q_tile = q[:, :, qs:qe].float()
        m = torch.full((B, H, qe - qs), float("-inf"))
        l = torch.zeros(B, H, qe - qs)
        acc = torch.zeros(B, H, qe - qs, D)
        for ks in range(0, S, block_k):
            if causal and ks > qe - 1:
                break  # this key tile and every later one lie after the tile's last query row
            ke = min(ks + block_k, S)
            s = (q_tile @ k[:, :, ks:ke].float().transpose(-2, -1)) * scale
            if causal:
                rows = torch.arange(qs, qe)[:, None]
                cols = torch.arange(ks, ke)[None, :]
                s = s.masked_fill(cols > rows, float("-inf"))
            m_new = torch.maximum(m, s.amax(-1))  # finite: every row sees key 0 in its first key tile
            alpha = torch.exp(m - m_new)
            p = torch.exp(s - m_new[..., None])
            l = l * alpha + p.sum(-1)
            acc = acc * alpha[..., None] + p @ v[:, :, ks:ke].float()
            m = m_new
        out[:, :, qs:qe] = acc / l[..., None]
        lse[:, :, qs:qe] = m + torch.log(l)
    return out.to(q.dtype), lse
