# expect: wrong_answer
# why: counts every clean step since the start instead of the clean steps since the last change:
#      the counter is not reset on an overflow, so the scale grows again too soon after a backoff
def loss_scale_updates(found_inf, init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5,
                       growth_interval=2000):
    scale, clean = float(init_scale), 0
    scales, skipped = [], []
    for inf in found_inf:
        if inf:
            scale *= backoff_factor
        else:
            clean += 1
            if clean % growth_interval == 0:
                scale *= growth_factor
        scales.append(scale)
        skipped.append(bool(inf))
    return scales, skipped
