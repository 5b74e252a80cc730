import torch

F32, F64 = torch.float32, torch.float64


def _random(seed, shape, dtype=F32, offset=0.0, constant_rows=(), zero_grad=False, eps=1e-5, scale=1.0):
    """Inputs; eps=None leaves eps out (the default, 1e-5)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g, dtype=F64) * scale + offset
    flat = x.view(-1, shape[-1])
    for r in constant_rows:
        flat[r] = float(r) - 1.5          # a constant row: var = 0, x_hat = 0
    d = shape[-1]
    weight = 1.0 + 0.5 * torch.randn(d, generator=g, dtype=F64)
    bias = 0.1 * torch.randn(d, generator=g, dtype=F64)
    grad_out = torch.zeros(*shape, dtype=F64) if zero_grad else torch.randn(*shape, generator=g, dtype=F64)
    tensors = (x.to(dtype), weight.to(dtype), bias.to(dtype), grad_out.to(dtype))
    return tensors if eps is None else (*tensors, eps)


def _example():
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
    return (x, torch.ones(4), torch.zeros(4), torch.tensor([[1.0, 0.0, 0.0, 0.0]]), 1e-5)


def cases():
    return [
        {"name": "example: x [1, 2, 3, 4], grad_out [1, 0, 0, 0]", "args": _example()},
        {"name": "a constant row (var = 0: 1 / sqrt(eps)) among others, eps left at its default 1e-5",
         "args": _random(1, (4, 16), constant_rows=(2,), eps=None)},
        {"name": "rows of variance 1e-6 beside eps = 1e-4, float64", "args": _random(10, (4, 32), dtype=F64, scale=1e-3,
                                                                                    eps=1e-4)},
        {"name": "every row constant", "args": _random(2, (3, 8), constant_rows=(0, 1, 2))},
        {"name": "3-D [2, 3, 16]: grad_weight sums over both leading dims", "args": _random(3, (2, 3, 16))},
        {"name": "d = 1 (x_hat is always 0)", "args": _random(4, (5, 1))},
        {"name": "rows offset by 1000 (variance by cancellation)", "args": _random(5, (4, 64), offset=1000.0)},
        {"name": "float64 [8, 64], eps = 1e-6", "args": _random(6, (8, 64), dtype=F64, eps=1e-6)},
        {"name": "hidden size 768, 16 tokens", "args": _random(7, (16, 768))},
        {"name": "zero upstream gradient", "args": _random(8, (3, 32), zero_grad=True)},
        {"name": "no rows ([0, 8]): weight and bias gradients are 0", "args": _random(9, (0, 8))},
    ]


def fresh(seed):
    """Random inputs, new at every grading (never shown): 0 to 3 leading dimensions (empty ones too), d from 1
    (from 2 in float32), float32 or float64, eps left out or set, constant rows (in float64 only), rows offset by up
    to 1000 (in float32 with a spread of 1 or more over 16 values or more), variances near eps (in float64 only)."""
    g = torch.Generator().manual_seed(seed)

    def draw(*choices):
        return choices[int(torch.randint(len(choices), (), generator=g))]

    def below(n):
        return int(torch.randint(n, (), generator=g))

    d = draw(1, 2, 1 + below(64), 1 + below(1024))
    lead = [draw(0, 1, 1 + below(6)) for _ in range(below(4))]
    if draw(True, False):
        lead = [max(1, n) for n in lead]  # mostly non-empty
    shape = (*lead, d)
    rows = 1
    for n in lead:
        rows *= n
    dtype = draw(F32, F64)
    # A constant row's x_hat is 0 only where its mean comes out exact. float32 arithmetic that does not (torch's
    # own layer_norm) leaves rounding that 1 / sqrt(eps) amplifies past the tolerance on a few draws in a
    # thousand: float32's constant rows are the fixed cases' (a row of 8 or 16, a row of one); the fresh draws'
    # are float64's.
    if dtype == F32 and d == 1:
        d, shape = 2, (*lead, 2)
    eps = draw(None, 1e-5, 1e-6, 1e-4, 1e-3)
    offset = draw(0.0, 0.0, 1000.0 * (2 * float(torch.rand((), generator=g)) - 1))
    scale = draw(1.0, 0.1, 5.0, 1e-3 if dtype == F64 and offset == 0.0 else 1.0)
    if offset != 0.0 and dtype == F32:
        # float32 rows near 1000 keep ~1e-4 of a unit spread: few rows of 16 to 128, of spread 1 or more (a
        # shorter row's sample variance can be far below it)
        scale, rows = draw(1.0, 5.0), min(rows, 8)
        shape = (rows, min(max(d, 16), 128))
    constant_rows = tuple(r for r in range(rows) if below(8) == 0) if dtype == F64 else ()
    return {"args": _random(below(2 ** 31), shape, dtype=dtype, offset=offset, constant_rows=constant_rows,
                            zero_grad=below(10) == 0, eps=eps, scale=scale)}
