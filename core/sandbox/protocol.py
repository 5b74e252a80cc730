"""What crosses the process boundaries of the sandbox: the types both sides import.

grader -> zygote (Unix datagram socket, JSON): {"op": "fork", "cuda": bool} with three descriptors
    (the worker's input pipe, its output pipe, its printed-output file)
zygote -> grader: {"ready": true, "cuda", "triton", "interpret"} once; {"pid"} per fork;
    {"spare", "cuda"} per worker started ahead of need; {"exit", "code"} per exit of a handed-out worker
grader -> worker (frames, pickle: the worker trusts its grader): a SolutionSpec, then one request per call
worker -> grader (frames, torch.save read back with weights_only): {"status": "started",
    "resident_bytes"} before any solution code runs, {"status": "ready" | "error"} once loaded,
    then one answer per call
"""

from __future__ import annotations

from dataclasses import dataclass

from ..limits import WorkerLimits


@dataclass(frozen=True)
class SolutionSpec:
    """What a worker runs: a solution (or a trusted reference) and the limits it runs under."""

    source: str
    filename: str
    entry_point: str
    limits: WorkerLimits
    forbidden_modules: tuple[str, ...] = ()
    forbidden_calls: tuple[str, ...] = ()
    preload: tuple[str, ...] = ()  # trusted modules imported before the solution (e.g. timing code)
    problem_modules: tuple[tuple[str, str], ...] = ()  # (module name, path): lets the child unpickle inputs

    @property
    def cuda(self) -> bool:
        return self.limits.cuda
