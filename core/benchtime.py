"""The benchmark's timing code, run inside the solution's process (child side of `core/bench.py`).

The sandbox imports this module before it loads the solution (`SolutionSpec.preload`), so the
references taken here, to the clocks and to the problem's input maker, are the real ones even if
the solution replaces them later; after timing, every replacement is reported and the parent
rejects the run. Nothing here is taken on trust by the parent: it checks the last output against
the reference on the same seed, the device times against its own wall clock, and the throughput
against the device's copy bandwidth. What this module adds is timing that a solution cannot
silently redirect by monkeypatching.

The protocol is the seed verifier's: warm-up calls on one throwaway input set (so shape-keyed JIT
and autotuning caches are not penalised), then every timed repetition on freshly made inputs with
its own seed, each call bracketed by CUDA events and a device synchronisation. The last output is
sent back for the check; the expected outputs never enter this process.
"""

from __future__ import annotations

import sys
import time
import types
from typing import Any, Callable

import torch

_perf_counter = time.perf_counter
_synchronize = torch.cuda.synchronize
_device_synchronize = getattr(torch._C, "_cuda_synchronize", None)  # what torch.cuda.synchronize calls
_Event = torch.cuda.Event
_EVENT_METHODS = {name: getattr(_Event, name)
                  for name in ("__new__", "__init__", "record", "elapsed_time", "synchronize")}
_empty_cache = torch.cuda.empty_cache

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


def _replaced(maker: tuple[Callable[..., Any], Any]) -> list[str]:
    """What the solution has swapped out since this module was imported."""
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
    function, code = maker
    if function.__code__ is not code:
        found.append(f"{function.__module__}.{function.__name__}")
    return found


def time_reps(entry: Callable[..., Any], payload: dict[str, Any]) -> dict[str, Any]:
    """Warm up, then call `entry` once per seed on fresh inputs.

    payload: module and make_inputs (the trusted input maker), shape, device, warmup (calls on the
    inputs of warmup_seed), seeds (one timed repetition each) and timed (CUDA events; else the
    repetitions run untimed, as a correctness gate).
    -> {"reps": [{"device_ms", "wall_ms"}], "output": the last repetition's output, "replaced": [...]}
    """
    maker = _maker(payload["module"], payload["make_inputs"])
    make, shape, device, timed = maker[0], tuple(payload["shape"]), payload["device"], payload["timed"]
    replaced = _replaced(maker)
    if replaced:  # replaced at import: time nothing with a forged clock
        return {"reps": [], "output": None, "replaced": replaced}

    if payload["warmup"]:
        warm = make(*shape, seed=payload["warmup_seed"], device=device)
        for _ in range(payload["warmup"]):
            entry(*warm)
        del warm
    if timed:
        _synchronize()
        _empty_cache()

    reps, output = [], None
    for seed in payload["seeds"]:
        output = None  # the previous repetition's output is not kept alive during this one
        args = make(*shape, seed=seed, device=device)
        if timed:
            _synchronize()
            start, end = _Event(enable_timing=True), _Event(enable_timing=True)
            started = _perf_counter()
            _EVENT_METHODS["record"](start)
            output = entry(*args)
            _EVENT_METHODS["record"](end)
            _synchronize()
            wall_ms = (_perf_counter() - started) * 1e3
            reps.append({"device_ms": _EVENT_METHODS["elapsed_time"](start, end), "wall_ms": wall_ms})
        else:
            started = _perf_counter()
            output = entry(*args)
            reps.append({"device_ms": None, "wall_ms": (_perf_counter() - started) * 1e3})
        del args
        if timed:
            _empty_cache()
    return {"reps": reps, "output": output, "replaced": _replaced(maker)}


def copy_bandwidth(_entry: Callable[..., Any], payload: dict[str, Any]) -> dict[str, Any]:
    """The device's own copy bandwidth: a large device-to-device copy, timed like a repetition.

    Run in the reference's process (trusted code only). -> {"bytes": read + written per copy,
    "reps": [{"device_ms", "wall_ms"}], "device": the device's name}
    """
    free, _ = torch.cuda.mem_get_info()
    size = min(payload["bytes"], free // 4)
    source = torch.empty(size, dtype=torch.uint8, device="cuda")
    target = torch.empty_like(source)
    for _ in range(payload["warmup"]):
        target.copy_(source)
    reps = []
    for _ in range(payload["reps"]):
        _synchronize()
        start, end = _Event(enable_timing=True), _Event(enable_timing=True)
        started = _perf_counter()
        _EVENT_METHODS["record"](start)
        target.copy_(source)
        _EVENT_METHODS["record"](end)
        _synchronize()
        reps.append({"device_ms": _EVENT_METHODS["elapsed_time"](start, end),
                     "wall_ms": (_perf_counter() - started) * 1e3})
    return {"bytes": 2 * size, "reps": reps, "device": torch.cuda.get_device_name()}
