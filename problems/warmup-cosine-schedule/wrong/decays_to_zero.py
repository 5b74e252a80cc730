# expect: wrong_answer
# why: writes the cosine as max_lr * 0.5 * (1 + cos(pi * r)), which decays to 0 rather than to
#      min_lr, then jumps up to min_lr at total_steps (LLaMA ends at 10% of the peak, not 0)
import math

import torch


def warmup_cosine_lr(steps, max_lr, min_lr, warmup_steps, total_steps):
    t = steps.to(torch.float64)
    warm = max_lr * (t + 1) / (warmup_steps + 1)
    r = ((t - warmup_steps) / max(total_steps - warmup_steps, 1)).clamp(0.0, 1.0)
    cos = 0.5 * (1.0 + torch.cos(math.pi * r)) * max_lr
    return torch.where(t < warmup_steps, warm, torch.where(t >= total_steps, torch.full_like(t, min_lr), cos))
