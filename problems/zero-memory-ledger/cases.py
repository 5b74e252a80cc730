import random


def fresh(seed):
    """A model of random size (0 to 1e13 parameters) on a random number of GPUs (1 to 100,000), new at every grading."""
    rng = random.Random(seed)
    params = 0 if rng.random() < 0.05 else rng.randrange(1, 10 ** rng.randint(1, 13) + 1)
    return {"args": [params, rng.randrange(1, 10 ** rng.randint(1, 5) + 1)]}
