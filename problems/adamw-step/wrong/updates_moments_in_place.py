# expect: wrong_answer
# why: updates the caller's m and v in place (m.mul_(beta1).add_(...), as the optimizer does on
#      its own state) and returns them: every value is right, but the inputs were to stay unchanged
import torch


def adamw_step(params, grads, exp_avgs, exp_avg_sqs, step, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
               weight_decay=1e-2):
    b1, b2 = betas
    out_p = []
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs):
        m.mul_(b1).add_(g, alpha=1 - b1)
        v.mul_(b2).addcmul_(g, g, value=1 - b2)
        denom = (v / (1 - b2 ** step)).sqrt() + eps
        out_p.append(p * (1 - lr * weight_decay) - lr * (m / (1 - b1 ** step)) / denom)
    return out_p, list(exp_avgs), list(exp_avg_sqs)
