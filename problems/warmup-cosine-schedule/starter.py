import torch


def warmup_cosine_lr(steps: torch.Tensor, max_lr: float, min_lr: float, warmup_steps: int,
                     total_steps: int) -> torch.Tensor:
    """Learning rate at each step: linear warmup, then cosine decay to min_lr (nanoGPT's get_lr).

    steps: int64 tensor of any shape (possibly empty), entries >= 0.
      t <  warmup_steps:                max_lr * (t + 1) / (warmup_steps + 1)
      warmup_steps <= t < total_steps:  min_lr + 0.5 * (1 + cos(pi * r)) * (max_lr - min_lr),
                                        r = (t - warmup_steps) / (total_steps - warmup_steps)
      t >= total_steps:                 min_lr

    Return a float64 tensor of steps' shape. No Python loop is needed: use torch.where.
    """
    raise NotImplementedError
