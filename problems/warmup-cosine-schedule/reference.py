import math

import torch


def warmup_cosine_lr(steps: torch.Tensor, max_lr: float, min_lr: float, warmup_steps: int,
                     total_steps: int) -> torch.Tensor:
    # nanoGPT's get_lr, step by step, in float64. The only change: t >= total_steps gives min_lr
    # (nanoGPT tests t > total_steps, which is the same value unless total_steps == warmup_steps,
    # where nanoGPT would divide 0 by 0 at t == total_steps).
    out = []
    for t in steps.reshape(-1).tolist():
        if t < warmup_steps:
            lr = max_lr * (t + 1) / (warmup_steps + 1)
        elif t >= total_steps:
            lr = min_lr
        else:
            decay_ratio = (t - warmup_steps) / (total_steps - warmup_steps)
            lr = min_lr + 0.5 * (1.0 + math.cos(math.pi * decay_ratio)) * (max_lr - min_lr)
        out.append(lr)
    return torch.tensor(out, dtype=torch.float64).reshape(steps.shape)
