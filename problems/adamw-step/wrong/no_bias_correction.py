# expect: wrong_answer
# why: uses m and v directly, without dividing by 1 - beta ** step: on the first steps m is 10x
#      and v 1000x too small (they start at zero), so the first updates are about 3x too large
import torch


def adamw_step(params, grads, exp_avgs, exp_avg_sqs, step, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
               weight_decay=1e-2):
    b1, b2 = betas
    out_p, out_m, out_v = [], [], []
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs):
        p = p * (1 - lr * weight_decay)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        out_p.append(p - lr * m / (v.sqrt() + eps))
        out_m.append(m)
        out_v.append(v)
    return out_p, out_m, out_v
