# expect: forbidden
# why: the same optimizer through an alias of the module, which no import or call names (this used to be
#      accepted): the class's constructor carries a tripwire
import torch

optimizers = getattr(torch, "optim")


def adamw_step(params, grads, exp_avgs, exp_avg_sqs, step, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
               weight_decay=1e-2):
    ps = [torch.nn.Parameter(p.detach().clone()) for p in params]
    if not ps:
        return [], [], []
    opt = optimizers.AdamW(ps, lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, foreach=False)
    for p, g, m, v in zip(ps, grads, exp_avgs, exp_avg_sqs):
        p.grad = g.clone()
        opt.state[p] = {"step": torch.tensor(float(step - 1)), "exp_avg": m.clone(), "exp_avg_sq": v.clone()}
    opt.step()
    return ([p.detach() for p in ps], [opt.state[p]["exp_avg"] for p in ps],
            [opt.state[p]["exp_avg_sq"] for p in ps])
