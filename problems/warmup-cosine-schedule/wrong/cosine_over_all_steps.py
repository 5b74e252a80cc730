# expect: wrong_answer
# why: measures the cosine's progress as t / total_steps instead of (t - warmup_steps) /
#      (total_steps - warmup_steps): the decay starts below max_lr right after the warmup and the
#      curve jumps at the boundary
import math

import torch


def warmup_cosine_lr(steps, max_lr, min_lr, warmup_steps, total_steps):
    t = steps.to(torch.float64)
    warm = max_lr * (t + 1) / (warmup_steps + 1)
    r = (t / max(total_steps, 1)).clamp(0.0, 1.0)
    cos = min_lr + 0.5 * (1.0 + torch.cos(math.pi * r)) * (max_lr - min_lr)
    return torch.where(t < warmup_steps, warm, torch.where(t >= total_steps, torch.full_like(t, min_lr), cos))
