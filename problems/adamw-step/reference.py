import torch


def adamw_step(params, grads, exp_avgs, exp_avg_sqs, step, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
               weight_decay=1e-2):
    # torch.optim.AdamW itself, started from the given state: "step" holds the number of steps
    # already taken (step - 1); the optimizer increments it and uses `step` in the bias corrections.
    if not params:
        return [], [], []
    ps = [torch.nn.Parameter(p.detach().clone()) for p in params]
    opt = torch.optim.AdamW(ps, lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                            foreach=False)
    for p, g, m, v in zip(ps, grads, exp_avgs, exp_avg_sqs, strict=False):
        p.grad = g.detach().clone()
        opt.state[p] = {"step": torch.tensor(float(step - 1)), "exp_avg": m.detach().clone(),
                        "exp_avg_sq": v.detach().clone()}
    opt.step()
    return ([p.detach().clone() for p in ps],
            [opt.state[p]["exp_avg"].clone() for p in ps],
            [opt.state[p]["exp_avg_sq"].clone() for p in ps])
