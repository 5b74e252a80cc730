# expect: wrong_answer
# why: vectorises nanoGPT's `if it > lr_decay_iters: return min_lr` literally; when total_steps ==
#      warmup_steps the step t == total_steps takes the cosine branch with decay_ratio 0 / 0 = NaN
#      (every schedule with a real decay phase is right, which hides it)
import math

import torch


def warmup_cosine_lr(steps, max_lr, min_lr, warmup_steps, total_steps):
    t = steps.to(torch.float64)
    warm = max_lr * (t + 1) / (warmup_steps + 1)
    r = (t - warmup_steps) / torch.tensor(float(total_steps - warmup_steps), dtype=torch.float64)
    cos = min_lr + 0.5 * (1.0 + torch.cos(math.pi * r)) * (max_lr - min_lr)
    return torch.where(t < warmup_steps, warm, torch.where(t > total_steps, torch.full_like(t, min_lr), cos))
