"""A KernelBench trial, run in a worker (core/grading/kernelbench.py is the grader's side).

The solution's worker runs `trial` on its `ModelNew`, the reference's (trusted code only) on `Model`:
both models are built after the same seed, then called on the trial's inputs, which the grader made and
sent. The sandbox imports this module before it loads the solution (`SolutionSpec.preload`), so the
functions taken here are torch's own even if the solution replaces them later.
"""

from __future__ import annotations

from typing import Any

import torch
from infrakata.core.sandbox import trace
from infrakata.core.sandbox.recording import recording_to_wire

_manual_seed = torch.manual_seed  # seeds the CPU and every CUDA device, as KernelBench's set_seed does
_clone = torch.Tensor.clone
_equal = torch.equal
_no_grad = torch.no_grad
_synchronize = torch.cuda.synchronize


def _to(value: Any, device: str) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(_to(v, device) for v in value)
    return value


def trial(entry: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """Build `entry(*init_inputs)` after `init_seed`, call it on `inputs` after `seed`, on `device`.

    payload: init_seed, init_inputs, seed, inputs, device, trace (what to record of the forward call:
    core/sandbox/trace.py). -> {"output", "recording" (its wire form), "changed": the positions of the
    inputs the call wrote to}. Every stream of the device is synchronised before the output is sent, so
    work left on a side stream is in it or not, as it stands once the call has returned.
    """
    device = payload["device"]
    inputs = _to(list(payload["inputs"]), device)
    before = [_clone(x) if isinstance(x, torch.Tensor) else None for x in inputs]
    _manual_seed(payload["init_seed"])
    model = entry(*_to(list(payload["init_inputs"]), device))
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
