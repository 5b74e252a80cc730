import math

import torch


def _f32(x: float) -> float:
    """x rounded to float32 (inf past float32's max), as a Python float."""
    return float(torch.tensor(x, dtype=torch.float32))


def loss_scale_updates(found_inf: list, init_scale: float = 65536.0, growth_factor: float = 2.0,
                       backoff_factor: float = 0.5, growth_interval: int = 2000):
    # GradScaler.update() (torch's _amp_update_scale_ kernel), once per step. GradScaler keeps
    # the scale in a float32 tensor: each product is rounded to float32, and a growth whose
    # float32 result is inf is not applied.
    scale = _f32(init_scale)
    tracker = 0  # consecutive clean steps since the last growth or backoff
    scales, skipped = [], []
    for inf in found_inf:
        if inf:
            scale = _f32(scale * backoff_factor)
            tracker = 0
        else:
            tracker += 1
            if tracker == growth_interval:
                grown = _f32(scale * growth_factor)
                if math.isfinite(grown):
                    scale = grown
                tracker = 0
        scales.append(scale)
        skipped.append(bool(inf))  # GradScaler.step() skips optimizer.step() when grads had inf/NaN
    return scales, skipped
