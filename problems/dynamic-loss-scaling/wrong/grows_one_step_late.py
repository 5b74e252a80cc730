# expect: wrong_answer
# why: checks the counter before counting the current step (counter >= growth_interval, then
#      counter += 1), so the scale grows after growth_interval + 1 clean steps instead of after
#      growth_interval of them
def loss_scale_updates(found_inf, init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5,
                       growth_interval=2000):
    scale, tracker = float(init_scale), 0
    scales, skipped = [], []
    for inf in found_inf:
        if inf:
            scale *= backoff_factor
            tracker = 0
        elif tracker >= growth_interval:
            scale *= growth_factor
            tracker = 0
        else:
            tracker += 1
        scales.append(scale)
        skipped.append(bool(inf))
    return scales, skipped
