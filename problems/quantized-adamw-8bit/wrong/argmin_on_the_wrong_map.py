# expect: wrong_answer
# why: finds the nearest code by argmin over |c - map|, but requantises the second moment on
#      qmap1 (the signed map for m) instead of qmap2: v only uses the upper half of a map with
#      half the resolution, so v_out drifts from the reference
import torch

BLOCK = 2048


def requantise(x, qmap):
    xb = x.view(-1, BLOCK)
    absmax = xb.abs().amax(-1)
    c = xb / absmax.clamp(min=1e-30).unsqueeze(-1)
    code = (c.unsqueeze(-1) - qmap).abs().argmin(-1)
    return (qmap[code] * absmax.unsqueeze(-1)).reshape(-1), absmax


def quantized_adamw_step(params, grads, m_code, m_absmax, v_code, v_absmax, qmap1, qmap2, step,
                         lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, wd=0.01):
    m = qmap1[m_code.long()] * m_absmax.repeat_interleave(BLOCK)
    v = qmap2[v_code.long()] * v_absmax.repeat_interleave(BLOCK)
    g = grads.float()
    m_new = beta1 * m + (1.0 - beta1) * g
    v_new = beta2 * v + (1.0 - beta2) * g * g
    denom = (v_new / (1.0 - beta2 ** step)).sqrt() + eps
    p_out = params.float() * (1.0 - lr * wd) - (lr / (1.0 - beta1 ** step)) * m_new / denom
    m_out, m_absmax_out = requantise(m_new, qmap1)
    v_out, v_absmax_out = requantise(v_new, qmap1)
    return p_out.to(torch.bfloat16), m_out, v_out, m_absmax_out, v_absmax_out
