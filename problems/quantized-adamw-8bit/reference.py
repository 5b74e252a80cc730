"""The numerical specification: the seed verifier's `_ref` and `_requantise`, unchanged.

Correct and simple, not fast: every line materialises another full-size fp32 temporary.
"""

import torch

BLOCK = 2048


def _requantise(x, qmap):
    """x -> (dequantised round trip, per-block absmax). Nearest entry of the ascending 256-point map."""
    nb = x.numel() // BLOCK
    xb = x.view(nb, BLOCK)
    absmax = xb.abs().amax(-1)
    c = xb / absmax.clamp(min=1e-30).unsqueeze(-1)
    mid = (qmap[:-1] + qmap[1:]) * 0.5
    code = torch.bucketize(c, mid)
    return (qmap[code] * absmax.unsqueeze(-1)).reshape(-1), absmax


def quantized_adamw_step(params, grads, m_code, m_absmax, v_code, v_absmax, qmap1, qmap2, step,
                         lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, wd=0.01):
    """8-bit blockwise AdamW, in fp32."""
    m = qmap1[m_code.long()] * m_absmax.repeat_interleave(BLOCK)
    v = qmap2[v_code.long()] * v_absmax.repeat_interleave(BLOCK)
    g = grads.float()

    m_new = beta1 * m + (1.0 - beta1) * g
    v_new = beta2 * v + (1.0 - beta2) * g * g

    bc1 = 1.0 - beta1 ** step
    bc2 = 1.0 - beta2 ** step
    denom = (v_new / bc2).sqrt() + eps
    upd = (lr / bc1) * m_new / denom
    p_out = params.float() * (1.0 - lr * wd) - upd

    m_out, m_absmax_out = _requantise(m_new, qmap1)
    v_out, v_absmax_out = _requantise(v_new, qmap2)
    return p_out.to(torch.bfloat16), m_out, v_out, m_absmax_out, v_absmax_out
