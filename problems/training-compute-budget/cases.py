import random


def fresh(seed):
    """A random budget (0 or up to 1e27 FLOPs) and model size (1 to 1e13 parameters), new at every grading."""
    rng = random.Random(seed)
    flops = 0.0 if rng.random() < 0.05 else 10 ** rng.uniform(0, 27)
    return {"args": [flops, rng.randrange(1, 10 ** rng.randint(1, 13) + 1)]}
