import random

import torch


def _flags(seed, n, p_inf):
    g = torch.Generator().manual_seed(seed)
    return [bool(x) for x in (torch.rand(n, generator=g) < p_inf).tolist()]


def cases():
    example = [True, False, False, False, True, False, False, False, False]
    return [
        {"name": "example: interval 3, overflow at steps 0 and 4", "args": (example, 1024.0, 2.0, 0.5, 3)},
        {"name": "no steps: empty lists", "args": ([], 65536.0)},
        {"name": "torch defaults: early overflows halve 65536 until it fits", "args": ([True] * 6 + [False] * 20, 65536.0)},
        {"name": "growth_interval 1: grows after every clean step", "args": ([False, False, True, False, True, True, False], 1.0, 2.0, 0.5, 1)},
        {"name": "inf resets the clean-step counter (interval 4)", "args": ([False, False, False, True, False, False, False, False, False, False, False, False], 8.0, 2.0, 0.5, 4)},
        {"name": "random overflows, interval 5, 300 steps", "args": (_flags(1, 300, 0.08), 32768.0, 2.0, 0.5, 5)},
        {"name": "random overflows, factors 4 and 0.25, interval 7", "args": (_flags(2, 200, 0.1), 256.0, 4.0, 0.25, 7)},
        {"name": "non-power-of-two factors 1.5 and 0.6", "args": (_flags(3, 120, 0.15), 1000.0, 1.5, 0.6, 3)},
        {"name": "growth past float32's max is not applied (2^126, interval 1)", "args": ([False] * 5 + [True] + [False] * 3, 2.0 ** 126, 2.0, 0.5, 1)},
        {"name": "a growth that would pass float32's max by 6% (3.2e38 * 1.0625 is fine, * 1.1 is not)", "args": ([False, False, False], 3.2e38, 1.1, 0.5, 1)},
        {"name": "every step overflows", "args": ([True] * 40, 65536.0, 2.0, 0.5, 2)},
        {"name": "exactly growth_interval clean steps, then one more", "args": ([False] * 2001, 65536.0)},
        {"name": "every argument but the flags left at torch's defaults", "args": ([True, False, True] + [False] * 2000,)},
    ]


def _f32(x):
    return float(torch.tensor(x, dtype=torch.float32))


def _near_f32_max(found_inf, scale, growth, backoff, interval):
    """Whether some growth lands between float32's max and 2**128, where the rounding decides finiteness."""
    scale, tracker = _f32(scale), 0
    for inf in found_inf:
        tracker = 0 if inf else tracker + 1
        if inf:
            scale = _f32(scale * backoff)
        elif tracker == interval:
            tracker = 0
            if torch.finfo(torch.float32).max * (1 - 1e-6) < scale * growth < 2.0 ** 128 * (1 + 1e-6):
                return True
            if scale * growth < 2.0 ** 128:
                scale = _f32(scale * growth)
    return False


def fresh(seed):
    """A random run of overflows (bursts or none), with random float32-exact factors, interval and initial
    scale (up to float32's max), or torch's defaults."""
    rng = random.Random(seed)
    while True:
        n = rng.choice([0, rng.randint(1, 40), rng.randint(1, 400), rng.randint(1, 3000)])
        p_inf = rng.choice([0.0, 0.01, 0.05, 0.2, 0.5, 1.0])
        found_inf = [rng.random() < p_inf for _ in range(n)]
        if found_inf and rng.random() < 0.3:  # a burst of overflows at the start, as fp16 training begins
            burst = rng.randint(1, min(20, n))
            found_inf[:burst] = [True] * burst
        # Factors exact in float32, so that a float32 product and a float64 one rounded to float32 agree.
        growth = rng.choice([2.0, 2.0, 4.0, 1.5, 1.25, 3.0, 1.0 + rng.randint(1, 255) / 256])
        backoff = rng.choice([0.5, 0.5, 0.25, 0.75, 0.625, rng.randint(1, 255) / 256])
        interval = rng.choice([1, 2, rng.randint(1, 20), rng.randint(1, 3000)])
        init = rng.choice([65536.0, 1.0, 2.0 ** rng.randint(-20, 127), _f32(rng.uniform(1.0, 1e6)),
                           _f32(2.0 ** rng.uniform(-30.0, 127.9))])
        args = (found_inf, init, growth, backoff, interval)
        if rng.random() < 0.15:
            args = args[:rng.randint(1, 4)]  # the rest at torch's defaults
        full = args + (65536.0, 2.0, 0.5, 2000)[len(args) - 1:]
        if not _near_f32_max(*full):
            return {"args": args}
