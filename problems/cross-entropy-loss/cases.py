import random

import torch

F32 = torch.float32
F64 = torch.float64


def _random(seed, n, c, scale=2.0, ignored=(), dtype=F32):
    g = torch.Generator().manual_seed(seed)
    logits = (torch.randn(n, c, generator=g, dtype=F64) * scale).to(dtype)
    targets = torch.randint(0, c, (n,), generator=g)
    for i in ignored:
        targets[i] = -100
    return logits, targets


def _case(name, args, **kwargs):
    return {"name": name, "args": args, "kwargs": kwargs}


def _worked():
    # The statement's example: logits [[2, 1, 0.1], [0.5, 2.5, 0.3]], targets [0, -100].
    return (torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]], dtype=F64), torch.tensor([0, -100]))


def _huge():
    # Logits of 1e4: exp overflows to inf in any float dtype unless the row max is subtracted first.
    logits = torch.tensor([[1e4, 0.0, -1e4], [1e4, 1e4 - 2.0, 5.0], [-1e4, -1e4 + 3.0, -1e4]], dtype=F32)
    return logits, torch.tensor([1, 0, 0])


def cases():
    return [
        _case("worked example, one ignored row", _worked()),
        _case("worked example with label_smoothing 0.1", _worked(), label_smoothing=0.1),
        _case("random [16, 10]", _random(1, 16, 10)),
        _case("random [33, 7], label_smoothing 0.2, a third of the rows ignored",
              _random(2, 33, 7, ignored=range(0, 33, 3)), label_smoothing=0.2),
        _case("logits of +-1e4 (stable log-softmax needed)", _huge()),
        _case("logits of +-1e4, label_smoothing 0.1", _huge(), label_smoothing=0.1),
        _case("one row, one class (loss 0)", (torch.tensor([[3.5]], dtype=F64), torch.tensor([0]))),
        _case("every target ignored: NaN (0 / 0)", _random(3, 4, 5, ignored=range(4))),
        _case("custom ignore_index 0 (class 0 rows do not count)", _random(4, 20, 3), ignore_index=0),
        _case("label_smoothing 1.0 (uniform target)", _random(5, 12, 6, dtype=F64), label_smoothing=1.0),
        _case("float64 [64, 1000], logits scaled by 30", _random(6, 64, 1000, scale=30.0, dtype=F64),
              label_smoothing=0.05),
    ]


def fresh(seed):
    """A random batch (1 to 300 rows, 1 to 1,000 classes), float32 logits of scale 0.1 to 10 or float64
    ones of scale 0.1 to 2,500 or shifted near +-1e4 (at most 1e4 in magnitude), a random share of rows
    ignored (now and then all: NaN) under -100, another negative index or a real class, and a random
    label smoothing (0, 1 or between), each left at its default now and then."""
    rng = random.Random(seed)
    dtype = rng.choice([F32, F64])
    n = rng.choice([1, rng.randint(1, 16), rng.randint(1, 300)])
    c = rng.choice([1, 2, rng.randint(2, 16), rng.randint(2, 16), rng.randint(2, min(1000, 30_000 // n)),
                    rng.randint(2, min(1000, 30_000 // n))])
    scale = 10.0 ** rng.uniform(-1, 1 if dtype == F32 else 3.4)
    logits, targets = _random(rng.getrandbits(62), n, c, scale=scale, dtype=dtype)
    if dtype == F64 and rng.random() < 0.3:  # a shift: logits near +-1e4, of a narrower spread
        logits = logits / scale * min(scale, 30.0) + rng.choice([-1, 1]) * rng.uniform(0, 1e4)
    logits = logits.clamp(-1e4, 1e4)
    kwargs = {}
    ignore_index = rng.choice([-100, -100, -1, rng.randrange(c) if c > 2 else -100])
    if ignore_index != -100 or rng.random() < 0.5:
        kwargs["ignore_index"] = ignore_index
    every = rng.random() < 0.05  # every row ignored: NaN
    share = 1.0 if every else rng.choice([0.0, 0.0, 0.3, rng.random()])
    targets[torch.rand(n, generator=torch.Generator().manual_seed(rng.getrandbits(62))) < share] = ignore_index
    if not every and (targets == ignore_index).all():  # one row kept, with a class other than ignore_index
        targets[rng.randrange(n)] = (ignore_index + 1) % c if 0 <= ignore_index < c else rng.randrange(c)
    smoothing = rng.choice([0.0, 0.1, 1.0, rng.random()])
    if smoothing or rng.random() < 0.5:
        kwargs["label_smoothing"] = smoothing
    return {"args": (logits, targets), "kwargs": kwargs}
