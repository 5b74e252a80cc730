import math
import random


def _off_the_halves(value):
    """Whether round(value) cannot depend on the order of the arithmetic that made it: value is more than
    16 of its ulps (and more than 1e-9) away from a half."""
    return abs(value - math.floor(value) - 0.5) > max(16 * math.ulp(value), 1e-9)


def fresh(seed):
    """A random budget (1 to 1e28 FLOPs, log-uniform; 0 now and then) and ratio (0.1 to 10,000 tokens per
    parameter, Chinchilla's 20 or the default now and then), neither answer within 16 ulps of a half."""
    rng = random.Random(seed)
    while True:
        compute = 0.0 if rng.random() < 0.03 else 10.0 ** rng.uniform(0, 28)
        ratio = rng.choice([None, 20.0, 10.0 ** rng.uniform(-1, 4), float(rng.randint(1, 200)), rng.randint(1, 400) / 2])
        n = math.sqrt(compute / (6 * (20.0 if ratio is None else ratio)))
        d = (20.0 if ratio is None else ratio) * n
        if _off_the_halves(n) and _off_the_halves(d):
            return {"args": [compute] if ratio is None else [compute, ratio]}
