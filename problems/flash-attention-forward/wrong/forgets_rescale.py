# expect: wrong_answer
# why: updates the running max and rescales the sum l, but not the accumulated output acc:
#      rows whose max grows in a later key tile keep old weights measured against a stale max
import math

import torch


def flash_attention_forward(q, k, v, causal, block_q, block_k):
    B, H, S, D = q.shape
    scale = 1.0 / math.sqrt(D)
    out = torch.empty(B, H, S, D, dtype=torch.float32)
    lse = torch.empty(B, H, S, dtype=torch.float32)
    for qs in range(0, S, block_q):
        qe = min(qs + block_q, S)
        qt = q[:, :, qs:qe].float()
        m = torch.full((B, H, qe - qs), float("-inf"))
        l = torch.zeros(B, H, qe - qs)
        acc = torch.zeros(B, H, qe - qs, D)
        for ks in range(0, S, block_k):
            if causal and ks > qe - 1:
                break
            ke = min(ks + block_k, S)
            s = (qt @ k[:, :, ks:ke].float().transpose(-2, -1)) * scale
            if causal:
                rows = torch.arange(qs, qe)[:, None]
                cols = torch.arange(ks, ke)[None, :]
                s = s.masked_fill(cols > rows, float("-inf"))
            m_new = torch.maximum(m, s.amax(-1))
            alpha = torch.exp(m - m_new)
            p = torch.exp(s - m_new[..., None])
            l = l * alpha + p.sum(-1)
            acc = acc + p @ v[:, :, ks:ke].float()
            m = m_new
        out[:, :, qs:qe] = acc / l[..., None]
        lse[:, :, qs:qe] = m + torch.log(l)
    return out.to(q.dtype), lse
