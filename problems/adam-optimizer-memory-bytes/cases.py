import random


def fresh(seed):
    """A model of random size, new at every grading (never shown): from a few parameters to 10^12."""
    rng = random.Random(seed)
    return {"args": [rng.randrange(1, 10 ** rng.randint(1, 12))]}
