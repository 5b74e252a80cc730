"""Tokens, router logits and experts for moe-top-k-gating. Random logits have no ties, so that the
top-k order is defined; some cases skew the router towards a few experts so that capacity binds."""
import torch


def _case(seed, T, E, d, d_out, k, capacity_factor, aux_loss_coef, normalize, skew=None, logits_dtype=None):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(T, d, generator=g)
    logits = torch.randn(T, E, generator=g) * 1.5
    if skew is not None:
        logits += torch.tensor(skew)  # a router that favours some experts
    if logits_dtype is not None:
        logits = logits.to(logits_dtype)
    ranked = logits.float().sort(dim=-1).values
    if (ranked[:, 1:] == ranked[:, :-1]).any():  # bf16 ties easily; a tie would make the top-k order a sort's
        raise ValueError(f"cases.py: seed {seed} draws two equal logits in a row, which the statement rules out: "
                         "choose another seed")
    weights = torch.randn(E, d, d_out, generator=g) / d ** 0.5
    return (x, logits, weights, k, capacity_factor, aux_loss_coef, normalize)


def _statement_example():
    x = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
    logits = torch.tensor([[2.0, 0.0], [1.0, 0.0], [3.0, 0.0], [0.0, 1.0]])
    weights = torch.tensor([[[10.0]], [[100.0]]])
    return (x, logits, weights, 1, 1.0, 0.01, False)


def cases():
    return [
        {"name": "the statement's example: 3 tokens want expert 0, which has 2 slots", "args": _statement_example()},
        {"name": "example: 8 tokens, 4 experts, top-2, capacity 4",
         "args": _case(1, 8, 4, 4, 3, 2, 1.0, 0.01, True, skew=[1.0, 0.5, 0.0, 0.0])},
        {"name": "Switch: top-1, raw gate, capacity factor 1.25 (capacity 5 of 16 tokens over 4)",
         "args": _case(2, 16, 4, 8, 8, 1, 1.25, 0.01, False, skew=[1.2, 0.0, 0.0, -1.0])},
        {"name": "Mixtral-like: top-2 of 8, gates renormalised, capacity factor 2 (no drops)",
         "args": _case(3, 32, 8, 8, 4, 2, 2.0, 0.02, True)},
        {"name": "capacity factor 0.5: second choices dropped first",
         "args": _case(4, 24, 6, 4, 4, 2, 0.5, 0.1, True)},
        {"name": "capacity rounds down to 0: at least one slot",
         "args": _case(5, 4, 8, 4, 2, 1, 1.0, 0.01, False, skew=[2.0, 0, 0, 0, 0, 0, 0, 0])},
        {"name": "a collapsed router (expert 0 favoured by +3): heavy drops, large auxiliary loss",
         "args": _case(6, 32, 4, 8, 8, 2, 1.0, 1.0, True, skew=[3.0, 0.0, 0.0, 0.0])},
        {"name": "bf16 router logits: the softmax in float32",
         "args": _case(9, 32, 8, 8, 8, 2, 1.25, 0.01, True, logits_dtype=torch.bfloat16)},
        {"name": "k = E: every token to every expert, capacity T",
         "args": _case(8, 6, 3, 4, 4, 3, 1.0, 0.05, False)},
        {"name": "one token, top-2 of 4, capacity factor 1.5",
         "args": _case(9, 1, 4, 4, 4, 2, 1.5, 0.01, True)},
        {"name": "top-3 of 8, capacity factor 0.75, unnormalised gates",
         "args": _case(10, 40, 8, 8, 6, 3, 0.75, 0.001, False, skew=[0.8, 0.6, 0.4, 0.2, 0, 0, 0, 0])},
        {"name": "64 tokens, top-2 of 8, capacity factor 1.25, coefficient 0.01",
         "args": _case(11, 64, 8, 16, 16, 2, 1.25, 0.01, True, skew=[1.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, -0.5])},
    ]


def fresh(seed):
    """A random MoE layer, new at every grading (never shown): 1 to 64 tokens, 1 to 8 experts, top-1 to top-E,
    capacity factors from 1/8 to 3 (capacities that round down to 0 too), raw or renormalised gates, float32 or
    bf16 logits, balanced or skewed routers; logits at least 1e-3 apart in each row (no tie, nor a near one)."""
    g = torch.Generator().manual_seed(seed)

    def draw(*choices):
        return choices[int(torch.randint(len(choices), (), generator=g))]

    def below(n):
        return int(torch.randint(n, (), generator=g))

    T, E = draw(1, 1 + below(16), 1 + below(64)), draw(1, 2, 4, 8, 1 + below(8))
    k = draw(1, 2, E, 1 + below(E)) if E > 1 else 1
    d, d_out = draw(1, 4, 1 + below(16)), draw(1, 4, 1 + below(16))
    # Multiples of 1/8: capacity_factor * k * T / E is then computed exactly, and never rounds across an integer.
    capacity_factor = draw(1.0, 1.25, 2.0, (1 + below(24)) / 8)
    skew = draw(None, (torch.randn(E, generator=g) * draw(0.5, 1.5, 3.0)).tolist())
    logits_dtype = draw(None, torch.bfloat16)
    while True:
        try:
            args = _case(below(2 ** 31), T, E, d, d_out, k, capacity_factor, draw(0.0, 0.01, 0.1, 1.0),
                         draw(True, False), skew=skew, logits_dtype=logits_dtype)
        except ValueError:  # an exact tie: drawn again, as a near one is
            continue
        gaps = args[1].float().sort(dim=1).values.diff(dim=1)
        if gaps.numel() == 0 or gaps.min() >= 1e-3:
            return {"args": args}
