import random


def fresh(seed):
    """A model of random size (0 to 10^12 parameters), dtype and master-copy flag, new at every grading (never
    shown); the defaults sometimes left out."""
    rng = random.Random(seed)
    num_params = rng.choice([0, 1, rng.randrange(1, 10 ** rng.randint(1, 12)), rng.randrange(10 ** 12 + 1)])
    param_dtype, master_weights = rng.choice(["fp32", "bf16", "fp16"]), rng.random() < 0.5
    form = rng.randrange(4)
    if form == 0:
        return {"args": [num_params]}  # bf16 with a master copy, the defaults
    if form == 1:
        return {"args": [num_params, param_dtype]}
    if form == 2:
        return {"args": [num_params], "kwargs": {"param_dtype": param_dtype, "master_weights": master_weights}}
    return {"args": [num_params, param_dtype, master_weights]}
