# expect: wrong_answer
# why: adds weight_decay * p to the gradient (torch.optim.Adam's weight_decay, L2 regularisation)
#      instead of decaying the weights directly; the decay then passes through m and v and is
#      divided by sqrt(v_hat), which is exactly what AdamW (Loshchilov & Hutter) decouples
import torch


def adamw_step(params, grads, exp_avgs, exp_avg_sqs, step, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
               weight_decay=1e-2):
    b1, b2 = betas
    out_p, out_m, out_v = [], [], []
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs):
        g = g + weight_decay * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = m / (1 - b1 ** step)
        v_hat = v / (1 - b2 ** step)
        out_p.append(p - lr * m_hat / (v_hat.sqrt() + eps))
        out_m.append(m)
        out_v.append(v)
    return out_p, out_m, out_v
