"""A LeetGPU benchmark repetition, run in a worker (core/bench/leetgpu.py is the grader's side): the solution's
worker runs `time_trial` on its `solve`, the reference's `check_trial` on the challenge's reference_impl. Each makes
the challenge's performance test itself (`generate_performance_test`, after the repetition's seed): only seeds cross
the wire, and a performance test may be gigabytes. The sandbox loads the challenge as trusted code
(`SolutionSpec.problem_modules`, where the preload puts the kind's importable module) and imports this module before
the solution (`SolutionSpec.preload`), so the maker and the clocks taken here are the challenge's and torch's own even
if the solution replaces them later; and inputs a solution spoils in its own worker only fail its own comparison, the
reference's outputs made on the reference's.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

import torch
from infrakata.core.bench import timing
from infrakata.core.grading.kinds.leetgpu_tests import made_value, uninitialised_memory_filled
from infrakata.core.sandbox.cuda_ipc import export_output, import_output

_perf_counter, _call, _replaced = timing._perf_counter, timing._call, timing._replaced
_before_a_lone_repetition = timing._before_a_lone_repetition
_manual_seed = torch.manual_seed  # seeds the CPU and every CUDA device
_Generator = torch.Generator


def _loaded_challenge() -> Any:
    """The Challenge class of the challenge this worker loaded (kinds.LeetGpu's importable module, which a harness's
    preload loads before this one), or None in a worker that has none."""
    for name, module in list(sys.modules.items()):
        if name.startswith("infrakata_problem_") and name.endswith("_leetgpu"):
            return module.Challenge
    return None


_Challenge = _loaded_challenge()
# The maker and its code as loaded: a repetition whose maker was changed since is refused (timing._replaced).
_maker = None if _Challenge is None else (_Challenge.generate_performance_test,
                                          _Challenge.generate_performance_test.__code__)
_parameters = [] if _Challenge is None else list(inspect.signature(_Challenge.reference_impl).parameters)[1:]
_kept_output: Any = None  # the solution's arguments after its last call, alive while the trusted worker checks them


def _performance_test(payload: dict[str, Any]) -> tuple[tuple[Any, ...], list[str]]:
    """The performance test's arguments in solve's order, and their names: made after the payload's seed, the
    challenge's own tensors on the payload's device, the ones the base class describes on the CPU (from a generator
    of the same seed, as the graded tests are made) and then moved there."""
    if _maker is None:
        raise RuntimeError("no LeetGPU challenge is loaded in this worker to make the performance test")
    device, seed = payload["device"], payload["seed"]
    _manual_seed(seed)
    generator = _Generator().manual_seed(seed)
    with uninitialised_memory_filled():
        test = _maker[0](_Challenge(device=device))
        if isinstance(test, list):  # the base class's annotation; the set's challenges return one dict
            test = test[0]
        values = {name: made_value(value, generator) for name, value in test.items()}
        names = [name for name in _parameters if name in values]
        args = tuple(values[name].to(device) if isinstance(values[name], torch.Tensor) else values[name]
                     for name in names)
    return args, names


def _repetition(entry: Any, payload: dict[str, Any]) -> tuple[tuple[Any, ...], list[str],
                                                              list[dict[str, float | None]], float]:
    """The warm-up calls, then (unless this is a warm-up request) one repetition, on the performance test of the
    payload's seed, after the device's L2 is flushed, timed as core/bench/timing.py times a kata's call. -> (the
    arguments after it, their names, its repetitions, the time the request took besides the calls)."""
    began = _perf_counter()
    args, names = _performance_test(payload)
    timed = payload["timed"]
    for _ in range(payload["warmup"]):
        entry(*args)
    reps: list[dict[str, float | None]] = []
    if payload["repeat"]:
        if timed:
            _before_a_lone_repetition()
        _, rep = _call(entry, args, timed, payload["spin_ms"])  # what solve returns is not read, as LeetGPU's
        reps.append(rep)
    overhead_ms = (_perf_counter() - began) * 1e3 - sum(float(rep["wall_ms"] or 0.0) for rep in reps)
    return args, names, reps, overhead_ms


def time_trial(entry: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """The solution's side of a repetition: `solve` called on the performance test.

    payload: seed, device, warmup, repeat, timed, spin_ms.
    -> {"reps", "output": the arguments after the call (exported: on CUDA, IPC handles to them, kept alive here until
    the next request), "replaced", "overhead_ms"}
    """
    global _kept_output
    _kept_output = None
    args, _, reps, overhead_ms = _repetition(entry, payload)
    _kept_output = list(args) if payload["repeat"] else None
    return {"reps": reps, "output": export_output(_kept_output), "replaced": _replaced(_maker),
            "overhead_ms": overhead_ms}


def check_trial(entry: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """The trusted side, in the reference's worker: reference_impl's own repetition on the same performance test, and
    the solution's arguments after its call compared with the reference's: each output ("out" or "inout") within the
    challenge's tolerance, every other argument exactly (it must come back unchanged).

    payload: time_trial's, plus solution_output, tolerance (compare.Tolerance's fields) and outputs (the names of the
    arguments graded in place). -> {"reps", "overhead_ms", "comparison"}
    """
    from infrakata.core.grading.compare import Comparison, Tolerance, compare, unchanged

    try:
        actual = import_output(payload["solution_output"])
    except (TypeError, ValueError, KeyError, RuntimeError) as error:
        failed = Comparison(False, f"the solution's arguments could not be read ({type(error).__name__}: {error})")
        return {"reps": [], "overhead_ms": 0.0, "comparison": vars(failed)}
    expected, names, reps, overhead_ms = _repetition(entry, payload)
    comparison = Comparison(True)
    if payload["repeat"]:
        if not isinstance(actual, list) or len(actual) != len(expected):
            comparison = Comparison(False, "the solution's arguments did not come back whole: the solution interfered "
                                           "with the harness")
        tolerance = Tolerance(**payload["tolerance"])
        for name, value, wanted in zip(names, actual, expected, strict=False):
            if not comparison.ok:
                break
            comparison = compare(value, wanted, tolerance, root=f"{name} after the call") \
                if name in payload["outputs"] else unchanged(value, wanted, name)
    return {"reps": reps, "overhead_ms": overhead_ms, "comparison": vars(comparison)}
