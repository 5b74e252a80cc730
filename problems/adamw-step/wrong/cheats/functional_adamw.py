# expect: forbidden
# why: torch's functional AdamW (what the optimizer class runs) on copies of the state: no class to construct,
#      reached by attribute, so neither the import guard nor the static check sees it
import torch


def adamw_step(params, grads, exp_avgs, exp_avg_sqs, step, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
               weight_decay=1e-2):
    ps, ms, vs = [p.clone() for p in params], [m.clone() for m in exp_avgs], [v.clone() for v in exp_avg_sqs]
    steps = [torch.tensor(float(step - 1)) for _ in params]
    functional = torch.optim._functional
    functional.adamw(ps, list(grads), ms, vs, [], steps, foreach=False, amsgrad=False, beta1=betas[0],
                     beta2=betas[1], lr=lr, weight_decay=weight_decay, eps=eps, maximize=False)
    return ps, ms, vs
