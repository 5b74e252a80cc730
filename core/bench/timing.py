"""The benchmark's timing code, run in the workers of `core/bench/benchmark.py`.

The solution's worker runs time_reps; the reference's, which runs trusted code only, check_reps and
copy_bandwidth. The sandbox imports this module before it loads the solution (`SolutionSpec.preload`),
so the references taken here (the clocks, the input maker, what a repetition calls) are the real ones
even if the solution replaces them later; every replacement is reported and rejects the run. The
protocol and what is checked: docs/KERNELS.md (The benchmark's method).
"""

from __future__ import annotations

import sys
import threading
import time
import types
from collections.abc import Callable
from typing import Any

import torch
from infrakata.core.sandbox import tripwires
from infrakata.core.sandbox.cuda_ipc import export_output, import_output

_perf_counter = time.perf_counter
_launches_so_far = tripwires.launches_so_far
_active_count = threading.active_count
_synchronize = torch.cuda.synchronize
_sleep: Callable[[int], None] = torch.cuda._sleep  # spins the device for a number of its clock cycles
_device_synchronize = getattr(torch._C, "_cuda_synchronize", None)  # what torch.cuda.synchronize calls
_Event = torch.cuda.Event
_EVENT_METHODS = {name: getattr(_Event, name)
                  for name in ("__new__", "__init__", "record", "elapsed_time", "synchronize")}
_empty_cache = torch.cuda.empty_cache
_empty = torch.empty
_zero = torch.Tensor.zero_
DEFAULT_FLUSH_BYTES = 256 << 20  # where the device does not say its L2 size

# The problem's trusted modules (cases.py) are loaded before this one, under the names Problem.module
# gives them; keep their functions and code objects.
_PROBLEM_MODULE_PREFIX = "infrakata_problem_"
_TRUSTED = {
    (name, attr): (value, value.__code__)
    for name, module in list(sys.modules.items()) if name.startswith(_PROBLEM_MODULE_PREFIX)
    for attr, value in vars(module).items() if isinstance(value, types.FunctionType)
}


def _maker(module: str, name: str) -> tuple[Callable[..., Any], Any]:
    try:
        return _TRUSTED[(module, name)]
    except KeyError:
        raise LookupError(f"{module}.{name} was not loaded before the solution; the benchmark cannot "
                          f"trust an input maker found later") from None


def _replaced(maker: tuple[Callable[..., Any], Any] | None = None) -> list[str]:
    """What the solution has swapped out since this module was imported (the clocks, and `maker`)."""
    found = []
    if time.perf_counter is not _perf_counter:
        found.append("time.perf_counter")
    if torch.cuda.synchronize is not _synchronize:
        found.append("torch.cuda.synchronize")
    if getattr(torch._C, "_cuda_synchronize", None) is not _device_synchronize:
        found.append("torch._C._cuda_synchronize")
    if torch.cuda.Event is not _Event:
        found.append("torch.cuda.Event")
    found += [f"torch.cuda.Event.{name}" for name, method in _EVENT_METHODS.items()
              if getattr(_Event, name, None) is not method]
    if maker is not None and maker[0].__code__ is not maker[1]:
        found.append(f"{maker[0].__module__}.{maker[0].__name__}")
    return found


def _l2_flush_buffer() -> torch.Tensor:
    """A buffer twice the device's L2 cache: writing it before a repetition evicts what the last one
    left there (GPU MODE's and KernelBench's harnesses do the same)."""
    l2 = getattr(torch.cuda.get_device_properties(torch.cuda.current_device()), "L2_cache_size", 0)
    return _empty(2 * l2 if l2 > 0 else DEFAULT_FLUSH_BYTES, dtype=torch.uint8, device="cuda")


def _before_a_lone_repetition() -> None:
    """The device idle, torch's cache emptied and the L2 flushed: before a repetition made alone in its request (the
    KernelBench and LeetGPU harnesses; _run_reps flushes a buffer it keeps across its repetitions)."""
    _synchronize()
    _empty_cache()
    _zero(_l2_flush_buffer())


_cycles_per_ms: float | None = None  # the device's spin rate, measured once per process


def _spin_cycles(spin_ms: float) -> int:
    """How many device clock cycles `torch.cuda._sleep` takes to spin for `spin_ms`, at the rate measured
    on this device the first time (a million cycles, timed by CUDA events)."""
    global _cycles_per_ms
    if spin_ms <= 0:
        return 0
    if _cycles_per_ms is None:
        probe = 1_000_000
        _sleep(probe)  # the first launch pays for loading the spin kernel
        start, end = _Event(enable_timing=True), _Event(enable_timing=True)
        _EVENT_METHODS["record"](start)
        _sleep(probe)
        _EVENT_METHODS["record"](end)
        _synchronize()
        _cycles_per_ms = probe / max(_EVENT_METHODS["elapsed_time"](start, end), 1e-3)
    return int(spin_ms * _cycles_per_ms)


def _call(fn: Callable[..., Any], args: tuple[Any, ...], timed: bool,
          spin_ms: float = 0.0) -> tuple[Any, dict[str, float | None]]:
    """fn(*args) as one repetition, with the host's wall time around it. Timed: after a device-wide
    synchronisation, a spin of `spin_ms` is queued and the start event behind it, so that the host's
    work before the first launch happens while the device is still busy (as in the seed, behind its
    input generation) and the events bracket the call's device work alone. The wall time includes the
    spin. -> (its output, {"device_ms", "wall_ms", "threads_left": the threads the call started that still run
    once it has returned, whose work no clock of the call's sees, "launches": its Triton launches, where the kata
    counts them})."""
    threads, launched = _active_count(), _launches_so_far()
    if not timed:
        started = _perf_counter()
        output = fn(*args)
        wall_ms = (_perf_counter() - started) * 1e3
        return output, {"device_ms": None, "wall_ms": wall_ms, "threads_left": float(_active_count() - threads),
                        "launches": float(_launches_so_far() - launched)}
    cycles = _spin_cycles(spin_ms)
    _synchronize()
    start, end = _Event(enable_timing=True), _Event(enable_timing=True)
    started = _perf_counter()
    if cycles:
        _sleep(cycles)
    _EVENT_METHODS["record"](start)
    output = fn(*args)
    _EVENT_METHODS["record"](end)
    _synchronize()
    wall_ms = (_perf_counter() - started) * 1e3
    return output, {"device_ms": _EVENT_METHODS["elapsed_time"](start, end), "wall_ms": wall_ms,
                    "threads_left": float(_active_count() - threads), "launches": float(_launches_so_far() - launched)}


def _run_reps(entry: Callable[..., Any], payload: dict[str, Any]) -> dict[str, Any]:
    """Warm up, then call `entry` once per seed on fresh inputs. -> reps, the last output, replaced.

    Memory between repetitions follows the seed verifier (everything freed and the cache emptied),
    so that the figure is comparable with its; the L2 flush and a device-wide synchronisation come
    before each timed call.
    """
    began = _perf_counter()
    maker = _maker(payload["module"], payload["make_inputs"])
    make, shape, device, timed = maker[0], tuple(payload["shape"]), payload["device"], payload["timed"]
    replaced = _replaced(maker)
    if replaced:  # replaced at import: time nothing with a forged clock
        return {"reps": [], "output": None, "replaced": replaced, "overhead_ms": 0.0}

    if payload["warmup"]:
        with tripwires.trusted():  # the input maker is the problem's, held to none of the kata's rules
            warm = make(*shape, seed=payload["warmup_seed"], device=device)
        for _ in range(payload["warmup"]):
            entry(*warm)
        del warm
    flush = None
    if timed:
        _synchronize()
        _empty_cache()
        flush = _l2_flush_buffer()

    reps, output, seeds = [], None, payload["seeds"]
    graded_after = payload.get("state_positions") or []
    for index, seed in enumerate(seeds):
        with tripwires.trusted():
            args = make(*shape, seed=seed, device=device)
        if timed:
            assert flush is not None
            _zero(flush)
        output, rep = _call(entry, args, timed, payload.get("spin_ms", 0.0))
        reps.append(rep)
        if graded_after:  # what the call wrote into its arguments is checked as well as what it returned
            output = {RETURNED: output, STATE: [args[position] for position in graded_after]}
        del args
        if index < len(seeds) - 1:
            output = None
            if timed:
                _empty_cache()
    # What this request spent besides its calls (the warm-up's included): the trusted reference's is the
    # grader's measure of what preparing a repetition costs.
    overhead_ms = (_perf_counter() - began) * 1e3 - sum(float(rep["wall_ms"] or 0.0) for rep in reps)
    return {"reps": reps, "output": output, "replaced": _replaced(maker), "overhead_ms": overhead_ms}


def time_reps(entry: Callable[..., Any], payload: dict[str, Any]) -> dict[str, Any]:
    """The solution's side of a shape: its repetitions, and its last output for the trusted check.

    payload: module and make_inputs (the trusted input maker), shape, device, warmup (calls on the
    inputs of warmup_seed), seeds (one repetition each), timed (CUDA events; else the repetitions
    run untimed, as a correctness gate), spin_ms (the device spin queued before each start event).
    -> {"reps": [{"device_ms", "wall_ms"}], "output": the last output, exported, "replaced": [...]}
    The output stays alive here until the next request: on CUDA what crosses to the grader is only
    IPC handles to it, which the trusted worker opens while this process is stopped.
    """
    global _exported
    _exported = None
    result = _run_reps(entry, payload)
    _exported = result["output"]
    result["output"] = export_output(_exported)
    return result


def check_reps(entry: Callable[..., Any], payload: dict[str, Any]) -> dict[str, Any]:
    """The trusted side of a shape, in the reference's worker: the reference's own repetitions (timed
    like the solution's, for the speed-up) on the same seeds, and the solution's last output compared
    with the reference's last, where both are (on the GPU for a CUDA run).

    payload: time_reps's, plus solution_output (as time_reps exported it), tolerance (compare.Tolerance's
    fields) and output_names. -> {"reps", "overhead_ms", "comparison": compare.Comparison's fields}
    """
    from infrakata.core.grading.compare import Comparison, Tolerance, compare

    try:
        actual = import_output(payload["solution_output"])
    except (TypeError, ValueError, KeyError, RuntimeError) as error:
        failed = Comparison(False, f"the solution's output could not be read ({type(error).__name__}: {error})")
        return {"reps": [{"device_ms": None, "wall_ms": 0.0}], "overhead_ms": 0.0, "comparison": vars(failed)}
    result = _run_reps(entry, payload)
    tolerance, expected = Tolerance(**payload["tolerance"]), result["output"]
    if payload.get("state_positions"):
        comparison = compare(actual.get(RETURNED) if isinstance(actual, dict) else actual, expected[RETURNED],
                             tolerance, names=tuple(payload["output_names"]))
        if comparison.ok:
            comparison = compare(actual.get(STATE) if isinstance(actual, dict) else None, expected[STATE], tolerance,
                                 names=tuple(f"{name} (written by the call)" for name in payload["state_names"]))
    else:
        comparison = compare(actual, expected, tolerance, names=tuple(payload["output_names"]))
    del actual, result["output"]
    if payload["timed"]:
        _empty_cache()
    return {"reps": result["reps"], "overhead_ms": result["overhead_ms"], "comparison": vars(comparison)}


# -- the last output, across processes (core/sandbox/cuda_ipc.py) -------------------------------

_exported: Any = None  # the solution's last output, kept alive while the grader checks it
# A call's output where its arguments are graded after it ([grading] state): what it returned, and those.
RETURNED, STATE = "__kata_returned__", "__kata_state__"


def copy_bandwidth(_entry: Callable[..., Any], payload: dict[str, Any]) -> dict[str, Any]:
    """The device's own copy bandwidth: a large device-to-device copy, timed like a repetition; and the launch
    floor: the least a launch takes on the device, one kernel that writes one byte, timed the same way.

    Run in the reference's process (trusted code only). -> {"bytes": read + written per copy,
    "reps": [{"device_ms", "wall_ms"}], "floor_reps": the same of the one-byte launch, "device": its name}
    """
    free, _ = torch.cuda.mem_get_info()
    size = min(payload["bytes"], free // 4)
    source = torch.empty(size, dtype=torch.uint8, device="cuda")
    target = torch.empty_like(source)
    for _ in range(payload["warmup"]):
        target.copy_(source)
    reps = [_call(target.copy_, (source,), timed=True, spin_ms=payload.get("spin_ms", 0.0))[1]
            for _ in range(payload["reps"])]
    byte = target[:1]
    floor_reps = [_call(byte.zero_, (), timed=True, spin_ms=payload.get("spin_ms", 0.0))[1]
                  for _ in range(payload["warmup"] + payload["reps"])][payload["warmup"]:]
    return {"bytes": 2 * size, "reps": reps, "floor_reps": floor_reps, "device": torch.cuda.get_device_name()}
