# expect: wrong_answer
# why: drops Adam's bias correction. At step 137, 1 - 0.999 ** 137 = 0.128, so the denominator
#      sqrt(v) is 2.8 times too small and every parameter moves 2.8 times too far
import torch

BLOCK = 2048


def requantise(x, qmap):
    xb = x.view(-1, BLOCK)
    absmax = xb.abs().amax(-1)
    c = xb / absmax.clamp(min=1e-30).unsqueeze(-1)
    code = torch.bucketize(c, (qmap[:-1] + qmap[1:]) * 0.5)
    return (qmap[code] * absmax.unsqueeze(-1)).reshape(-1), absmax


def quantized_adamw_step(params, grads, m_code, m_absmax, v_code, v_absmax, qmap1, qmap2, step,
                         lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, wd=0.01):
    m = qmap1[m_code.long()] * m_absmax.repeat_interleave(BLOCK)
    v = qmap2[v_code.long()] * v_absmax.repeat_interleave(BLOCK)
    g = grads.float()
    m_new = beta1 * m + (1.0 - beta1) * g
    v_new = beta2 * v + (1.0 - beta2) * g * g
    p_out = params.float() * (1.0 - lr * wd) - lr * m_new / (v_new.sqrt() + eps)
    m_out, m_absmax_out = requantise(m_new, qmap1)
    v_out, v_absmax_out = requantise(v_new, qmap2)
    return p_out.to(torch.bfloat16), m_out, v_out, m_absmax_out, v_absmax_out
