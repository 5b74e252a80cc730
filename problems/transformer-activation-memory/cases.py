import random


def fresh(seed):
    """A random layer (s up to 131072, b up to 64, heads a multiple of a random t, hidden of the heads), flags
    given or left to their defaults, new at every grading."""
    rng = random.Random(seed)
    t = rng.choice([1, 1, 2, 3, 4, 5, 6, 8, 16, 32])
    heads = t * rng.randint(1, 16)
    # hidden >= 8, a multiple of the heads (the table's Q, K and V are [b, a, s, h/a]), and so of t.
    hidden = heads * rng.randint(-(-8 // heads), 32768 // heads)
    seq_len = rng.randrange(1, 2 ** rng.randint(1, 17) + 1)
    args = [seq_len, rng.randint(1, 64), hidden, heads]
    flags = [t, rng.random() < 0.5, rng.random() < 0.5]
    given = rng.randint(0, 3)  # trailing arguments left to their defaults
    return {"args": args + flags[:given]}
