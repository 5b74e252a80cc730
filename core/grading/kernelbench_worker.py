"""A KernelBench trial, run in a worker (core/grading/kernelbench.py is the grader's side).

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
from infrakata.core.bench import timing
from infrakata.core.sandbox import trace
from infrakata.core.sandbox.recording import recording_to_wire

_manual_seed = torch.manual_seed  # seeds the CPU and every CUDA device, as KernelBench's set_seed does
_clone = torch.Tensor.clone
_equal = torch.equal
_no_grad = torch.no_grad
_synchronize = torch.cuda.synchronize
_compile = torch.compile
# The benchmark's own clocks and steps, taken as the sandbox imports this module, before the solution loads.
_perf_counter, _call, _replaced = timing._perf_counter, timing._call, timing._replaced
_empty_cache, _zero, _l2_flush_buffer = timing._empty_cache, timing._zero, timing._l2_flush_buffer
_export, _import = timing.export_output, timing.import_output


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


# -- the benchmark (core/bench/kernelbench.py) ---------------------------------------------------------------

_models: dict[tuple[int, bool], Any] = {}  # the models this worker times, each built once per benchmark
_kept_output: Any = None  # the solution's last output, alive while the trusted worker checks it


def _built(entry: Any, payload: dict[str, Any], init_inputs: list[Any], compiled: bool) -> Any:
    key = (payload["init_seed"], compiled)
    if key not in _models:
        device = payload["device"]
        _manual_seed(payload["init_seed"])
        model = entry(*_to(init_inputs, device))
        if isinstance(model, torch.nn.Module):
            model = model.to(device)
        _models[key] = _compile(model) if compiled else model
    return _models[key]


def _timed(entry: Any, payload: dict[str, Any], made: tuple[list[Any], list[Any]], began: float,
           compiled: bool = False) -> tuple[Any, list[dict[str, float | None]], float]:
    """The model's warm-up calls, then (unless this is a warm-up request) one repetition on `made`, the inputs
    of the payload's seeds, after the device's L2 is flushed, timed as core/bench/timing.py times a kata's call.
    -> (its output, its repetitions, the time since `began` besides the call: moving the inputs, the flush, and
    making them where that came after `began`)."""
    init_inputs, inputs = made
    model = _built(entry, payload, init_inputs, compiled)
    device, timed = payload["device"], payload["timed"]
    output: Any = None
    reps: list[dict[str, float | None]] = []
    with _no_grad():
        for _ in range(payload["warmup"]):
            model(*_to(inputs, device))
        if payload["repeat"]:
            args = tuple(_to(inputs, device))
            if timed:
                _synchronize()
                _empty_cache()
                _zero(_l2_flush_buffer())
            _manual_seed(payload["seed"])
            output, rep = _call(model, args, timed, payload["spin_ms"])
            reps.append(rep)
    overhead_ms = (_perf_counter() - began) * 1e3 - sum(float(rep["wall_ms"] or 0.0) for rep in reps)
    return output, reps, overhead_ms


def time_trial(entry: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """The solution's side of a benchmark repetition: ModelNew built once (after init_seed, from init_inputs),
    warmed up `warmup` times, then called on `inputs` after `seed` (unless `repeat` is false).

    payload: init_seed, seed, device, warmup, repeat, timed, spin_ms.
    -> {"reps", "output" (exported: on CUDA, IPC handles to it, kept alive here until the next request),
    "replaced", "overhead_ms"}
    """
    global _kept_output
    _kept_output = None
    began = _perf_counter()
    _kept_output, reps, overhead_ms = _timed(entry, payload, _made(payload), began)
    return {"reps": reps, "output": _export(_kept_output), "replaced": _replaced(), "overhead_ms": overhead_ms}


def check_trial(entry: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """The trusted side, in the reference's worker: Model's own repetition on the same inputs (and, with
    `compiled`, torch.compile(Model)'s), and the solution's output compared with Model's on the device.

    payload: time_trial's, plus solution_output, tolerance (compare.Tolerance's fields) and compiled.
    -> {"reps", "compiled_reps", "overhead_ms", "comparison"}
    """
    from infrakata.core.grading.compare import Comparison, Tolerance, compare

    try:
        actual = _import(payload["solution_output"])
    except (TypeError, ValueError, KeyError, RuntimeError) as error:
        failed = Comparison(False, f"the solution's output could not be read ({type(error).__name__}: {error})")
        return {"reps": [], "compiled_reps": [], "overhead_ms": 0.0, "comparison": vars(failed)}
    began = _perf_counter()
    made = _made(payload)  # once, for Model and torch.compile(Model) alike
    expected, reps, overhead_ms = _timed(entry, payload, made, began)
    compiled_reps: list[dict[str, float | None]] = []
    if payload["compiled"]:
        _, compiled_reps, _ = _timed(entry, payload, made, _perf_counter(), compiled=True)
    comparison = compare(actual, expected, Tolerance(**payload["tolerance"])) if payload["repeat"] else Comparison(True)
    return {"reps": reps, "compiled_reps": compiled_reps, "overhead_ms": overhead_ms, "comparison": vars(comparison)}
