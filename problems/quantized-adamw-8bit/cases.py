"""Inputs for quantized-adamw-8bit: the seed verifier's `_mk`, on any device.

Trusted code: the grader calls it for the correctness cases, and the benchmark calls
`make_inputs` with a fresh seed for every timed repetition.
"""

import torch

BLOCK = 2048
CORRECTNESS_SHAPES = [(7,), (13,), (129,), (61,)]


def make_inputs(NB, seed=0, device="cpu"):
    """A parameter buffer of NB blocks of 2048, with its 8-bit moment state already in the quantised
    form the reference must dequantise. The maps are the fixed nonlinear (cubic) maps the optimiser
    ships with: fine resolution near zero, coarse near the block maximum."""
    gen = torch.Generator(device=device).manual_seed(seed)
    N = NB * BLOCK

    t = (torch.arange(256, device=device, dtype=torch.float32) - 127.5) / 127.5
    qmap1 = t.sign() * t.abs() ** 3
    qmap2 = (torch.arange(256, device=device, dtype=torch.float32) / 255.0) ** 3

    params = (torch.randn(N, device=device, generator=gen) * 0.02).to(torch.bfloat16)
    grads = (torch.randn(N, device=device, generator=gen) * 1e-3).to(torch.bfloat16)
    m_code = torch.randint(0, 256, (N,), device=device, dtype=torch.uint8, generator=gen)
    # v's codes start at 1: a zero second moment would make the update m / eps.
    v_code = torch.randint(1, 256, (N,), device=device, dtype=torch.uint8, generator=gen)
    m_absmax = (1e-3 * (0.5 + torch.rand(NB, device=device, generator=gen))).float()
    v_absmax = (1e-6 * (0.5 + torch.rand(NB, device=device, generator=gen))).float()
    step = 137
    return (params, grads, m_code, m_absmax, v_code, v_absmax, qmap1, qmap2, step)


def work(NB):
    """Bytes attributed to one step, from the shape alone: per parameter read params (2), grads (2)
    and both codes (1 + 1), write params (2) and both dequantised moments (4 + 4). The absmax
    vectors are 1/2048 of the traffic and are not counted."""
    return 16 * NB * BLOCK


def _restarted(NB, seed, step, grad_scale):
    """The seed's inputs with zero moments (absmax 0), gradients scaled by `grad_scale`, at `step`."""
    params, grads, m_code, m_absmax, v_code, v_absmax, qmap1, qmap2, _ = make_inputs(NB, seed=seed)
    grads = (grads.float() * (grad_scale / 1e-3)).to(torch.bfloat16)
    return (params, grads, m_code, torch.zeros_like(m_absmax), v_code, torch.zeros_like(v_absmax), qmap1, qmap2, step)


def _tuned(NB, seed, step, grad_scale):
    """The seed's inputs at `step`, with gradients and the second moment scaled down by `grad_scale`
    (its square for v), so that sqrt(v) is near eps."""
    params, grads, m_code, m_absmax, v_code, v_absmax, qmap1, qmap2, _ = make_inputs(NB, seed=seed)
    grads = (grads.float() * (grad_scale / 1e-3)).to(torch.bfloat16)
    return (params, grads, m_code, m_absmax * (grad_scale / 1e-3), v_code, v_absmax * (grad_scale / 1e-3) ** 2,
            qmap1, qmap2, step)


def cases():
    # The seed verifier's inputs (step 137, default hyperparameters), then what they leave untested:
    # other steps and every hyperparameter.
    seed_cases = [{"name": f"{NB} blocks of {BLOCK} (seed {10 + i})", "args": make_inputs(NB, seed=10 + i)}
                  for i, (NB,) in enumerate(CORRECTNESS_SHAPES)]
    return seed_cases + [
        {"name": "first step from zero moments (absmax 0), lr 1e-2, wd 0.1",
         "args": _restarted(2, 20, 1, 1e-3), "kwargs": {"lr": 1e-2, "wd": 0.1}},
        {"name": "step 10, betas (0.8, 0.95), eps 1e-6 beside sqrt(v) of about 1e-6",
         "args": _tuned(3, 21, 10, 1e-6), "kwargs": {"beta1": 0.8, "beta2": 0.95, "eps": 1e-6}},
    ]


def fresh(seed):
    """A random step, new at every grading (never shown): 1 to 16 blocks of 2048, any step from the first (from
    zero moments, or not) to 10^4, and random hyperparameters (lr, betas, eps beside sqrt(v) or far below it,
    weight decay 0 or not), each left at its default at times."""
    g = torch.Generator().manual_seed(seed)

    def draw(*choices):
        return choices[int(torch.randint(len(choices), (), generator=g))]

    def below(n):
        return int(torch.randint(n, (), generator=g))

    NB, inputs_seed = draw(1, 2, 1 + below(16)), below(2 ** 31)
    step = draw(1, 2, 137, 1 + below(100), 1 + below(10_000))
    kind = draw("seed", "seed", "restarted", "tuned")
    if kind == "seed":
        args = list(make_inputs(NB, seed=inputs_seed))
        args[-1] = step
    elif kind == "restarted":
        args = list(_restarted(NB, inputs_seed, step, draw(1e-3, 1e-2, 1e-5)))
    else:
        args = list(_tuned(NB, inputs_seed, step, draw(1e-6, 1e-5)))
    kwargs = {}
    if draw(False, True):
        kwargs["lr"] = draw(1e-2, 3e-4, float(10 ** (-4 * float(torch.rand((), generator=g)) - 1)))
    if draw(False, True):
        kwargs["beta1"] = draw(0.8, 0.95, 0.5 + 0.49 * float(torch.rand((), generator=g)))
    if draw(False, True):
        kwargs["beta2"] = draw(0.95, 0.99, 0.9999, 0.9 + 0.0999 * float(torch.rand((), generator=g)))
    if kind == "tuned" or draw(False, True):
        kwargs["eps"] = draw(1e-6, 1e-7, 1e-10)
    if draw(False, True):
        kwargs["wd"] = draw(0.0, 0.1, float(torch.rand((), generator=g)) * 0.2)
    return {"args": tuple(args), "kwargs": kwargs}
