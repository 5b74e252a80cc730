import torch


def _flags(seed, n, p_inf):
    g = torch.Generator().manual_seed(seed)
    return [bool(x) for x in (torch.rand(n, generator=g) < p_inf).tolist()]


def cases():
    example = [True, False, False, False, True, False, False, False, False]
    return [
        {"name": "example: interval 3, overflow at steps 0 and 4", "args": (example, 1024.0, 2.0, 0.5, 3)},
        {"name": "no steps: empty lists", "args": ([], 65536.0)},
        {"name": "torch defaults: early overflows halve 65536 until it fits", "args": ([True] * 6 + [False] * 20, 65536.0)},
        {"name": "growth_interval 1: grows after every clean step", "args": ([False, False, True, False, True, True, False], 1.0, 2.0, 0.5, 1)},
        {"name": "inf resets the clean-step counter (interval 4)", "args": ([False, False, False, True, False, False, False, False, False, False, False, False], 8.0, 2.0, 0.5, 4)},
        {"name": "random overflows, interval 5, 300 steps", "args": (_flags(1, 300, 0.08), 32768.0, 2.0, 0.5, 5)},
        {"name": "random overflows, factors 4 and 0.25, interval 7", "args": (_flags(2, 200, 0.1), 256.0, 4.0, 0.25, 7)},
        {"name": "non-power-of-two factors 1.5 and 0.6", "args": (_flags(3, 120, 0.15), 1000.0, 1.5, 0.6, 3)},
        {"name": "growth past float32's max is not applied (2^126, interval 1)", "args": ([False] * 5 + [True] + [False] * 3, 2.0 ** 126, 2.0, 0.5, 1)},
        {"name": "a growth that would pass float32's max by 6% (3.2e38 * 1.0625 is fine, * 1.1 is not)", "args": ([False, False, False], 3.2e38, 1.1, 0.5, 1)},
        {"name": "every step overflows", "args": ([True] * 40, 65536.0, 2.0, 0.5, 2)},
        {"name": "exactly growth_interval clean steps, then one more", "args": ([False] * 2001, 65536.0)},
        {"name": "every argument but the flags left at torch's defaults", "args": ([True, False, True] + [False] * 2000,)},
    ]
