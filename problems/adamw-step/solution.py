import torch


def adamw_step(params, grads, exp_avgs, exp_avg_sqs, step, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
               weight_decay=1e-2):
    # The step by hand, in the order torch's single-tensor AdamW computes it, on new tensors.
    beta1, beta2 = betas
    bias_correction1 = 1 - beta1 ** step
    bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
    new_params, new_exp_avgs, new_exp_avg_sqs = [], [], []
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs, strict=True):
        p = p * (1 - lr * weight_decay)  # decoupled decay: never enters m or v
        m = torch.lerp(m, g, 1 - beta1)
        v = v * beta2 + (1 - beta2) * g * g
        denom = v.sqrt() / bias_correction2_sqrt + eps  # eps after the square root
        new_params.append(p - (lr / bias_correction1) * m / denom)
        new_exp_avgs.append(m)
        new_exp_avg_sqs.append(v)
    return new_params, new_exp_avgs, new_exp_avg_sqs
