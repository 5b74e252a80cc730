# expect: wrong_answer
# why: computes scores, the running sum and the output accumulator in the input dtype: for
#      fp16 inputs the scores lose their low bits before exp and the sums round at every tile
import math

import torch


def flash_attention_forward(q, k, v, causal, block_q, block_k):
    B, H, S, D = q.shape
    scale = 1.0 / math.sqrt(D)
    out = torch.empty(B, H, S, D, dtype=torch.float32)
    lse = torch.empty(B, H, S, dtype=torch.float32)
    for qs in range(0, S, block_q):
        qe = min(qs + block_q, S)
        qt = q[:, :, qs:qe]
        m = torch.full((B, H, qe - qs), float("-inf"), dtype=q.dtype)
        l = torch.zeros(B, H, qe - qs, dtype=q.dtype)
        acc = torch.zeros(B, H, qe - qs, D, dtype=q.dtype)
        for ks in range(0, S, block_k):
            if causal and ks > qe - 1:
                break
            ke = min(ks + block_k, S)
            s = (qt @ k[:, :, ks:ke].transpose(-2, -1)) * scale
            if causal:
                rows = torch.arange(qs, qe)[:, None]
                cols = torch.arange(ks, ke)[None, :]
                s = s.masked_fill(cols > rows, float("-inf"))
            m_new = torch.maximum(m, s.amax(-1))
            alpha = torch.exp(m - m_new)
            p = torch.exp(s - m_new[..., None])
            l = l * alpha + p.sum(-1)
            acc = acc * alpha[..., None] + p @ v[:, :, ks:ke]
            m = m_new
        out[:, :, qs:qe] = acc / l[..., None]
        lse[:, :, qs:qe] = m + torch.log(l)
    return out.to(q.dtype), lse
