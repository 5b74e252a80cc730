import math
import random


def _size_mb(rng):
    """A size in MB from 0 to 1e6: zero now and then, else log-uniform, sometimes a round number."""
    if rng.random() < 0.1:
        return 0.0
    size = 10.0 ** rng.uniform(-3, 6)
    return float(round(size, rng.choice([0, 1, 2, 6]))) if size >= 1 else size


def fresh(seed):
    """A random depth (1 to 10,000 layers), checkpoint interval (1, about sqrt(L), any up to L, L, or
    beyond L; dividing L or not) and activation and checkpoint sizes (0 to 1e6 MB, either heavier)."""
    rng = random.Random(seed)
    num_layers = rng.choice([1, rng.randint(2, 12), int(10 ** rng.uniform(0, 4))])
    interval = rng.choice([1, num_layers, num_layers + rng.randint(1, 100), max(1, math.isqrt(num_layers)),
                           rng.randint(1, num_layers), rng.randint(1, num_layers)])
    return {"args": [num_layers, interval, _size_mb(rng), _size_mb(rng)]}
