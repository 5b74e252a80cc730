

def adamw_step(params, grads, exp_avgs, exp_avg_sqs, step, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
               weight_decay=1e-2):
    """One torch.optim.AdamW step, by hand, out of place.

    params, grads, exp_avgs (m), exp_avg_sqs (v): lists of float32 tensors, matching shapes.
    step: the number of this step, 1 for the first one (m and v are then zeros).

        p = p * (1 - lr * weight_decay)                   # decoupled weight decay
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        m_hat = m / (1 - beta1 ** step);  v_hat = v / (1 - beta2 ** step)
        p = p - lr * m_hat / (sqrt(v_hat) + eps)

    Return (new_params, new_m, new_v), three lists of new float32 tensors; the inputs must not
    be modified.
    """
    raise NotImplementedError
