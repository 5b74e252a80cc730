"""Seeded models, optimizers and batches for gradient-accumulation.

Every case carries its own model and an optimizer over that model's parameters; the grader
sends each case's arguments in one pickle, so the optimizer still points at the model it was
built for. Nothing here reads the global RNG: layers are created uninitialised
(skip_init) and filled from a per-case torch.Generator.
"""
import math
import random

import torch
from torch import nn


def _linear(gen: torch.Generator, n_in: int, n_out: int) -> nn.Linear:
    """nn.Linear(n_in, n_out) initialised exactly as reset_parameters() does, drawing from gen."""
    layer = nn.utils.skip_init(nn.Linear, n_in, n_out)
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=gen)
    bound = 1 / math.sqrt(n_in)
    nn.init.uniform_(layer.bias, -bound, bound, generator=gen)
    return layer


def _mlp(gen: torch.Generator, n_in: int, hidden: int, n_out: int) -> nn.Sequential:
    return nn.Sequential(_linear(gen, n_in, hidden), nn.Tanh(), _linear(gen, hidden, n_out))


def _classification_batches(gen, count, batch_size, n_in, n_classes):
    return [
        (torch.randn(batch_size, n_in, generator=gen),
         torch.randint(0, n_classes, (batch_size,), generator=gen))
        for _ in range(count)
    ]


def _regression_batches(gen, count, batch_size, n_in, n_out):
    return [
        (torch.randn(batch_size, n_in, generator=gen), torch.randn(batch_size, n_out, generator=gen))
        for _ in range(count)
    ]


def _case(name, model, optimizer, batches, loss_fn, accumulation_steps):
    return {"name": name, "args": (model, optimizer, batches, loss_fn, accumulation_steps)}


def cases():
    out = []

    # The statement's example: torch.manual_seed(42); nn.Linear(4, 2); 4 batches of
    # (randn(2, 4), randint(0, 2, (2,))), drawn here from a generator in the same order.
    gen = torch.Generator().manual_seed(42)
    model = _linear(gen, 4, 2)
    out.append(_case(
        "exact multiple: Linear(4, 2), SGD lr=0.1, 4 batches, K=2 (the statement's example)",
        model, torch.optim.SGD(model.parameters(), lr=0.1),
        _classification_batches(gen, 4, 2, 4, 2), nn.CrossEntropyLoss(), 2))

    gen = torch.Generator().manual_seed(0)
    model = _linear(gen, 4, 2)
    out.append(_case(
        "exact multiple: Linear(4, 2), SGD lr=0.01, 4 batches, K=2",
        model, torch.optim.SGD(model.parameters(), lr=0.01),
        _classification_batches(gen, 4, 2, 4, 2), nn.CrossEntropyLoss(), 2))

    gen = torch.Generator().manual_seed(10)
    model = _mlp(gen, 4, 8, 3)
    out.append(_case(
        "exact multiple: MLP, SGD momentum=0.9, 6 batches, K=3",
        model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
        _classification_batches(gen, 6, 4, 4, 3), nn.CrossEntropyLoss(), 3))

    gen = torch.Generator().manual_seed(1)
    model = _mlp(gen, 4, 8, 3)
    out.append(_case(
        "non-multiple: 5 batches, K=2 (trailing group of 1), SGD momentum=0.9",
        model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
        _classification_batches(gen, 5, 4, 4, 3), nn.CrossEntropyLoss(), 2))

    gen = torch.Generator().manual_seed(2)
    model = _mlp(gen, 3, 6, 2)
    out.append(_case(
        "non-multiple: 7 batches, K=3 (trailing group of 1), AdamW, MSE regression",
        model, torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01),
        _regression_batches(gen, 7, 5, 3, 2), nn.MSELoss(), 3))

    gen = torch.Generator().manual_seed(3)
    model = _mlp(gen, 6, 10, 4)
    out.append(_case(
        "non-multiple: 8 batches, K=3 (trailing group of 2), SGD lr=0.05",
        model, torch.optim.SGD(model.parameters(), lr=0.05),
        _classification_batches(gen, 8, 3, 6, 4), nn.CrossEntropyLoss(), 3))

    gen = torch.Generator().manual_seed(4)
    model = _linear(gen, 5, 3)
    out.append(_case(
        "K=1: a step after every batch, Adam, 3 batches",
        model, torch.optim.Adam(model.parameters(), lr=0.01),
        _classification_batches(gen, 3, 4, 5, 3), nn.CrossEntropyLoss(), 1))

    gen = torch.Generator().manual_seed(5)
    model = _mlp(gen, 4, 8, 3)
    out.append(_case(
        "K larger than len(batches): 3 batches, K=8, one step, SGD momentum=0.9",
        model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
        _classification_batches(gen, 3, 4, 4, 3), nn.CrossEntropyLoss(), 8))

    gen = torch.Generator().manual_seed(6)
    model = _linear(gen, 4, 2)
    out.append(_case(
        "K equal to len(batches): 4 batches, K=4, one step, Adam",
        model, torch.optim.Adam(model.parameters(), lr=0.05),
        _regression_batches(gen, 4, 3, 4, 2), nn.MSELoss(), 4))

    gen = torch.Generator().manual_seed(7)
    model = _linear(gen, 4, 2)
    out.append(_case(
        "one batch, K=1, SGD lr=0.1",
        model, torch.optim.SGD(model.parameters(), lr=0.1),
        _classification_batches(gen, 1, 2, 4, 2), nn.CrossEntropyLoss(), 1))

    return out


def fresh(seed):
    """A random small model (Linear or MLP), optimizer (SGD with or without momentum, Adam, AdamW) and learning
    rate, loss (cross-entropy or MSE), 1-16 batches of random sizes, and K from 1 to past len(batches)."""
    rng = random.Random(seed)
    gen = torch.Generator().manual_seed(rng.randrange(2**62))
    n_in, n_out = rng.randint(1, 8), rng.randint(1, 6)
    model = _linear(gen, n_in, n_out) if rng.random() < 0.4 else _mlp(gen, n_in, rng.randint(2, 12), n_out)
    lr = 10 ** rng.uniform(-3.0, -1.0)
    optimizer = rng.choice([
        lambda: torch.optim.SGD(model.parameters(), lr=lr),
        lambda: torch.optim.SGD(model.parameters(), lr=lr, momentum=rng.choice([0.5, 0.9])),
        lambda: torch.optim.Adam(model.parameters(), lr=lr),
        lambda: torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=rng.choice([0.0, 0.01, 0.1])),
    ])()
    count, size = rng.randint(1, 16), rng.randint(1, 8)
    sizes = [size if rng.random() < 0.8 else rng.randint(1, 8) for _ in range(count)]
    if rng.random() < 0.5 and n_out >= 2:
        loss_fn = nn.CrossEntropyLoss()
        batches = [_classification_batches(gen, 1, s, n_in, n_out)[0] for s in sizes]
    else:
        loss_fn = nn.MSELoss()
        batches = [_regression_batches(gen, 1, s, n_in, n_out)[0] for s in sizes]
    steps = rng.choice([1, 2, 3, rng.randint(1, count), rng.randint(1, count + 4)])
    return {"args": (model, optimizer, batches, loss_fn, steps)}
