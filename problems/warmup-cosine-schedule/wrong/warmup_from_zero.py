# expect: wrong_answer
# why: warms up as max_lr * t / warmup_steps (the first nanoGPT version), so step 0 trains with
#      learning rate 0 and the warmup reaches max_lr one step early; the statement's warmup is
#      max_lr * (t + 1) / (warmup_steps + 1)
import math

import torch


def warmup_cosine_lr(steps, max_lr, min_lr, warmup_steps, total_steps):
    t = steps.to(torch.float64)
    warm = max_lr * t / max(warmup_steps, 1)
    r = ((t - warmup_steps) / max(total_steps - warmup_steps, 1)).clamp(0.0, 1.0)
    cos = min_lr + 0.5 * (1.0 + torch.cos(math.pi * r)) * (max_lr - min_lr)
    return torch.where(t < warmup_steps, warm, torch.where(t >= total_steps, torch.full_like(t, min_lr), cos))
