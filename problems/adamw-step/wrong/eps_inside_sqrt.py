# expect: wrong_answer
# why: divides by sqrt(v_hat + eps) instead of sqrt(v_hat) + eps: indistinguishable for ordinary
#      gradients (v_hat >> eps), but for gradients around 1e-10 sqrt(eps) = 1e-4 dwarfs
#      sqrt(v_hat) = 1e-10 and the update shrinks ~100x
import torch


def adamw_step(params, grads, exp_avgs, exp_avg_sqs, step, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
               weight_decay=1e-2):
    b1, b2 = betas
    out_p, out_m, out_v = [], [], []
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs):
        p = p * (1 - lr * weight_decay)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = m / (1 - b1 ** step)
        v_hat = v / (1 - b2 ** step)
        out_p.append(p - lr * m_hat / (v_hat + eps).sqrt())
        out_m.append(m)
        out_v.append(v)
    return out_p, out_m, out_v
