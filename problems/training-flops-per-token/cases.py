import random


def fresh(seed):
    """A random transformer config (0-1000 layers, widths and context up to 1e6, d_ff, d_attn and recompute
    given or left to their defaults), new at every grading."""
    rng = random.Random(seed)

    def width():
        return rng.randrange(1, 10 ** rng.randint(1, 6) + 1)

    n_layer = 0 if rng.random() < 0.05 else rng.randrange(1, 10 ** rng.randint(1, 3) + 1)
    kwargs = {}
    if rng.random() < 0.5:
        kwargs["d_ff"] = width()
    if rng.random() < 0.5:
        kwargs["d_attn"] = width()
    if rng.random() < 0.5:
        kwargs["recompute"] = rng.random() < 0.5
    return {"args": [n_layer, width(), width()], "kwargs": kwargs}
