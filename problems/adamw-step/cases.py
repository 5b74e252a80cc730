import random

import torch

F32 = torch.float32


def _state(seed, shapes, step, gscale=1.0):
    """Params, grads and a plausible optimizer state after step - 1 steps (zeros at step 1)."""
    g = torch.Generator().manual_seed(seed)
    params = [torch.randn(s, generator=g) for s in shapes]
    grads = [torch.randn(s, generator=g) * gscale for s in shapes]
    if step == 1:
        ms = [torch.zeros(s) for s in shapes]
        vs = [torch.zeros(s) for s in shapes]
    else:
        ms = [torch.randn(s, generator=g) * 0.1 * gscale for s in shapes]
        vs = [torch.rand(s, generator=g) * 0.01 * gscale ** 2 for s in shapes]
    return params, grads, ms, vs, step


def _example():
    p = [torch.tensor([1.0, -2.0])]
    g = [torch.tensor([0.5, 0.5])]
    return p, g, [torch.zeros(2)], [torch.zeros(2)], 1


def cases():
    return [
        {"name": "example: first step, p [1, -2], g [0.5, 0.5], lr 0.1, wd 0.1",
         "args": _example(), "kwargs": {"lr": 0.1, "weight_decay": 0.1}},
        {"name": "first step from zero moments (bias correction 10x and 1000x)",
         "args": _state(1, [(8, 4), (4,)], 1), "kwargs": {"lr": 1e-3}},
        {"name": "step 10 with existing moments", "args": _state(2, [(5, 3), (3,)], 10), "kwargs": {"lr": 3e-4}},
        {"name": "step 5000 (bias corrections near 1)", "args": _state(3, [(16,)], 5000), "kwargs": {"lr": 1e-3}},
        {"name": "weight_decay 0: plain Adam", "args": _state(4, [(6, 6)], 3), "kwargs": {"lr": 1e-2, "weight_decay": 0.0}},
        {"name": "LLaMA's betas (0.9, 0.95), eps 1e-5, weight_decay 0.1",
         "args": _state(5, [(7, 5), (5,)], 20), "kwargs": {"lr": 3e-4, "betas": (0.9, 0.95), "eps": 1e-5, "weight_decay": 0.1}},
        {"name": "tiny gradients (1e-10) on the first step: eps dominates",
         "args": _state(6, [(10,)], 1, gscale=1e-10), "kwargs": {"lr": 1e-3}},
        {"name": "zero gradients and zero moments: only the decay moves p",
         "args": ([torch.randn(3, 3, generator=torch.Generator().manual_seed(7))], [torch.zeros(3, 3)],
                  [torch.zeros(3, 3)], [torch.zeros(3, 3)], 1), "kwargs": {"lr": 1e-2, "weight_decay": 0.5}},
        {"name": "a 0-dim parameter and an empty one among others",
         "args": ([torch.tensor(2.0), torch.zeros(0, 4), torch.ones(3)], [torch.tensor(-1.0), torch.zeros(0, 4), torch.full((3,), 0.25)],
                  [torch.tensor(0.1), torch.zeros(0, 4), torch.zeros(3)], [torch.tensor(0.02), torch.zeros(0, 4), torch.full((3,), 1e-3)], 4),
         "kwargs": {"lr": 1e-2}},
        {"name": "every hyperparameter left at its default (lr 1e-3, betas (0.9, 0.999), eps 1e-8, wd 1e-2)",
         "args": _state(8, [(4, 4)], 7, gscale=1e-8)},
        {"name": "eps 1e-6 beside gradients of 1e-6: eps is half of the denominator",
         "args": _state(9, [(12,)], 2, gscale=1e-6), "kwargs": {"lr": 1e-2, "eps": 1e-6}},
        {"name": "no parameters", "args": ([], [], [], [], 1)},
    ]


def _shapes(rng):
    """0 to 4 parameters of random shapes (a 0-dim or an empty one now and then), 2,000 values at most."""
    shapes = []
    for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4])):
        shapes.append(rng.choice([(), (0,), (rng.randint(0, 3), 0), (rng.randint(1, 64),),
                                  (rng.randint(1, 24), rng.randint(1, 24)),
                                  (rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))]))
    return shapes


def fresh(seed):
    """A random step (1 to 10,000) of random parameters (shapes, their count) with gradients from 1e-12
    to 10 and a state to match, and random hyperparameters (lr 1e-5 to 0.1, beta1 0 to 0.99, beta2 0.9
    to 0.9999, eps 1e-8 to 1e-5, weight decay 0 to 0.5), each left at its default now and then."""
    rng = random.Random(seed)
    step = rng.choice([1, 1, 2, rng.randint(2, 50), rng.randint(2, 10_000)])
    shapes = _shapes(rng)
    # _state makes 0-dim tensors as [1] ones, reshaped here.
    state = _state(rng.getrandbits(62), [s or (1,) for s in shapes], step, gscale=10.0 ** rng.uniform(-12, 1))
    params, grads, ms, vs = ([t.reshape(s) for t, s in zip(ts, shapes, strict=True)] for ts in state[:4])
    scale = 10.0 ** rng.uniform(-2, 0.3)
    params = [p * scale for p in params]
    if grads and rng.random() < 0.2:  # one parameter without gradient (and, on step 1, without moments)
        grads[rng.randrange(len(grads))].zero_()
    kwargs = {}
    if rng.random() < 0.8:
        kwargs["lr"] = 10.0 ** rng.uniform(-5, -1)
    if rng.random() < 0.7:
        kwargs["betas"] = (rng.choice([0.0, 0.5, 0.9, 0.9, rng.uniform(0.0, 0.99)]),
                           rng.choice([0.95, 0.99, 0.999, rng.uniform(0.9, 0.9999)]))
    if rng.random() < 0.6:
        kwargs["eps"] = 10.0 ** rng.uniform(-8, -5)
    if rng.random() < 0.7:
        kwargs["weight_decay"] = rng.choice([0.0, 0.1, rng.uniform(0.0, 0.5)])
    return {"args": (params, grads, ms, vs, step), "kwargs": kwargs}
