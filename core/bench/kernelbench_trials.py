"""A KernelBench benchmark repetition, run in a worker (core/bench/kernelbench.py is the grader's side): the
solution's worker runs `time_trial` on its ModelNew, the reference's `check_trial` on Model, each making the
repetition's inputs itself from its seeds as a trial does (core/grading/kinds/kernelbench_worker.py). The sandbox
imports this module before it loads the solution (`SolutionSpec.preload`), so the clocks and steps taken here are the
benchmark's own even if the solution replaces them later.
"""

from __future__ import annotations

from typing import Any

import torch
from infrakata.core.bench import timing
from infrakata.core.grading.kinds.kernelbench_worker import _compile, _made, _manual_seed, _no_grad, _to
from infrakata.core.sandbox.cuda_ipc import export_output, import_output

_perf_counter, _call, _replaced = timing._perf_counter, timing._call, timing._replaced
_before_a_lone_repetition = timing._before_a_lone_repetition

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
                _before_a_lone_repetition()
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
    return {"reps": reps, "output": export_output(_kept_output), "replaced": _replaced(), "overhead_ms": overhead_ms}


def check_trial(entry: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """The trusted side, in the reference's worker: Model's own repetition on the same inputs (and, with
    `compiled`, torch.compile(Model)'s), and the solution's output compared with Model's on the device.

    payload: time_trial's, plus solution_output, tolerance (compare.Tolerance's fields) and compiled.
    -> {"reps", "compiled_reps", "overhead_ms", "comparison"}
    """
    from infrakata.core.grading.compare import Comparison, Tolerance, compare

    try:
        actual = import_output(payload["solution_output"])
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
