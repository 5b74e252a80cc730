import random


def fresh(seed):
    """A random model (from 0 parameters to 10^13), world size (1 to 100,000, often not dividing it) and stage."""
    rng = random.Random(seed)
    world_size = rng.choice([1, 2, 3, 6, 8, 64, 1024, rng.randint(1, 100_000), rng.randint(1, 100_000),
                             rng.randint(1, 16)])
    num_params = rng.choice([0, rng.randint(1, 2 * world_size), rng.randrange(10 ** rng.randint(1, 13) + 1),
                             rng.randrange(10 ** rng.randint(1, 13) + 1), world_size * rng.randint(1, 10 ** 8)])
    return {"args": [num_params, world_size, rng.randint(0, 3)]}
