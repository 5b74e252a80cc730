import random


def fresh(seed):
    """A random pipeline, new at every grading (never shown): 1 to 64 stages, 1 to 512 micro-batches (a multiple
    of p for the interleaved schedule, any number otherwise: fewer than the stages too), 1 to 8 chunks, random
    forward and backward times (t_b = 0 at times); v sometimes left out, or given to a schedule that ignores it."""
    rng = random.Random(seed)
    schedule = rng.choice(["gpipe", "1f1b", "interleaved"])
    p = rng.choice([1, 2, 4, 8, rng.randint(1, 16), rng.randint(1, 64)])
    v = rng.randint(1, 8)
    # Times in multiples of 1/64 ms: a schedule run step by step then sums them exactly (and their 1/v when v is
    # a power of two); with another v, a step's time is rounded, and the step's length is kept under 512 ms so
    # that the rounding a run accumulates stays far below the tolerance (1e-9 absolute).
    t_f = rng.choice([1.0, rng.randint(1, 640) / 64])
    t_b = rng.choice([0.0, 2 * t_f, rng.randint(1, 1280) / 64])
    budget = 4096 // (p * (v if schedule == "interleaved" else 1))  # a run steps through p * m * v slots
    if schedule == "interleaved":
        if v & (v - 1):
            budget = min(budget, int(512 / (t_f + t_b)))
        m = p * rng.randint(1, max(1, min(512 // p, budget // p)))
    else:
        m = rng.choice([1, rng.randint(1, max(1, p - 1)), rng.randint(1, max(1, min(512, budget)))])
    args = [p, m, t_f, t_b, schedule]
    form = rng.randrange(3)
    if form == 0 and (schedule != "interleaved" or v == 1):
        return {"args": args}  # v left at its default, 1
    if form == 1:
        return {"args": args, "kwargs": {"v": v}}
    return {"args": [*args, v]}
