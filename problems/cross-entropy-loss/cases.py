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
