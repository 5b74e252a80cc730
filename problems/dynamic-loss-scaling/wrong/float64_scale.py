# expect: wrong_answer
# why: keeps the scale as a Python float (float64) and checks math.isfinite on it: right until a
#      growth crosses float32's max (~3.4e38), which float64 holds easily; GradScaler's float32
#      scale would become inf there, so that growth is not applied
import math


def loss_scale_updates(found_inf, init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5,
                       growth_interval=2000):
    scale, tracker = float(init_scale), 0
    scales, skipped = [], []
    for inf in found_inf:
        if inf:
            scale *= backoff_factor
            tracker = 0
        else:
            tracker += 1
            if tracker == growth_interval:
                if math.isfinite(scale * growth_factor):
                    scale *= growth_factor
                tracker = 0
        scales.append(scale)
        skipped.append(bool(inf))
    return scales, skipped
