"""A KernelBench trial, run in a worker (core/grading/kinds/kernelbench.py is the grader's side).

The solution's worker runs `trial` on its `ModelNew`, the reference's (trusted code only) on `Model`: each
makes the trial's inputs itself, with the problem's own get_init_inputs() and get_inputs() after the trial's
seeds (as KernelBench makes them: on the CPU, each after its seed), builds its model after the same seed, and
calls it on them. Only seeds cross the wire: a KernelBench file's inputs may be gigabytes. The sandbox
loads the problem's file as trusted code (`SolutionSpec.problem_modules`) and imports this module before it
loads the solution (`SolutionSpec.preload`), so the makers and functions taken here are the problem's and
torch's own even if the solution replaces them later; and inputs a solution spoils in its own worker only
fail its own comparison, with the reference's outputs made on the reference's inputs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import torch
from infrakata.core.sandbox import trace
from infrakata.core.sandbox.recording import recording_to_wire

_manual_seed = torch.manual_seed  # seeds the CPU and every CUDA device, as KernelBench's set_seed does
_clone = torch.Tensor.clone
_equal = torch.equal
_no_grad = torch.no_grad
_synchronize = torch.cuda.synchronize
_compile = torch.compile


def _problem_makers() -> tuple[Callable[[], Any], Callable[[], Any]] | None:
    """get_init_inputs and get_inputs of the KernelBench problem this worker loaded (kinds.KernelBench's
    trusted module, loaded before this one), or None in a worker that has none."""
    for name, module in list(sys.modules.items()):
        if name.startswith("infrakata_problem_") and name.endswith("_kernelbench"):
            return module.get_init_inputs, module.get_inputs
    return None


_makers = _problem_makers()


def _made(payload: dict[str, Any], given: tuple[Any, ...] | None = None) -> tuple[list[Any], list[Any]]:
    """(init inputs, inputs): made here from the payload's init_seed and seed, on the CPU; the inputs are
    `given` instead where the grader made them (in its arena, on the CPU)."""
    if _makers is None:
        raise RuntimeError("no KernelBench problem is loaded in this worker to make the trial's inputs")
    get_init_inputs, get_inputs = _makers
    _manual_seed(payload["init_seed"])
    init_inputs = list(get_init_inputs())
    if given is not None:
        return init_inputs, list(given)
    _manual_seed(payload["seed"])
    return init_inputs, list(get_inputs())


def _to(value: Any, device: str) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(_to(v, device) for v in value)
    return value


def trial(entry: Any, payload: dict[str, Any], *given: Any) -> dict[str, Any]:
    """Build `entry(*init_inputs)` after `init_seed`, call it on the trial's inputs after `seed`, on `device`.
    The inputs are `given` (on the CPU: the grader made them in its arena, and reads back whether the call
    changed them), or made here from `seed` (_made: the reference's worker, and on CUDA).

    payload: init_seed, seed, device, trace (what to record of the forward call: core/sandbox/trace.py).
    -> {"output", "recording" (its wire form), "changed": the positions of the inputs made here that the call
    wrote to (on CUDA this worker's own report: docs/KERNELS.md)}. Every stream of the device is synchronised
    before the output is sent, so work left on a side stream is in it or not, as it stands once the call has
    returned.
    """
    device = payload["device"]
    init_inputs, made = _made(payload, given or None)
    inputs = _to(made, device)
    before = [_clone(x) if isinstance(x, torch.Tensor) and not given else None for x in inputs]
    _manual_seed(payload["init_seed"])
    model = entry(*_to(init_inputs, device))
    if isinstance(model, torch.nn.Module):
        model = model.to(device)
    _manual_seed(payload["seed"])
    recorder = trace.start(payload["trace"], tuple(inputs), {}, ())
    try:
        with _no_grad():
            output = model(*inputs)
    finally:
        recording = trace.stop(recorder)
    if device != "cpu":
        _synchronize()
    changed = [i for i, (x, was) in enumerate(zip(inputs, before, strict=True))
               if was is not None and not (x.shape == was.shape and _equal(x, was))]
    return {"output": output, "recording": recording_to_wire(recording), "changed": changed}
