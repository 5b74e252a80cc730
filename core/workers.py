"""The workers a grading opens: the solution's, and for a problem graded on a device, the reference's.

Both are forked from the warm pool under the problem's limits (core/limits.py); the solution's is
sent only the case inputs, the reference's runs trusted code only.
"""

from __future__ import annotations

from typing import Any

from .kinds import kind_of
from .problem import Problem
from .results import GradingError
from .sandbox.pool import WorkerPool
from .sandbox.protocol import SolutionSpec


def solution_spec(problem: Problem, source: str, filename: str, *, calls: int, cuda: bool,
                  preload: tuple[str, ...] = (), trusted: bool = False) -> SolutionSpec:
    """A worker for this problem: the learner's solution, or (trusted) its reference."""
    return SolutionSpec(
        source=source, filename=filename, entry_point=problem.entry_point,
        limits=problem.limits.worker(calls, cuda, trusted),
        forbidden_modules=() if trusted else problem.forbidden_modules,
        forbidden_calls=() if trusted else problem.forbidden_calls,
        preload=preload, problem_modules=kind_of(problem).trusted_modules(problem))


def reference_filename(problem: Problem) -> str:
    return kind_of(problem).reference_filename(problem)


def device_for(problem: Problem, pool: WorkerPool) -> str:
    """Where this problem's cases run here: a kernel problem on CUDA where there is one."""
    if problem.grading.device == "cuda" and pool.wait_ready().get("cuda"):
        return "cuda"
    return "cpu"


class ReferenceWorker:
    """The reference of a problem graded on a device, run in a worker of its own (trusted code only):
    its outputs are made where the solution's are, and come back as plain tensors."""

    def __init__(self, problem: Problem, pool: WorkerPool, device: str, calls: int):
        self.problem, self.device = problem, device
        spec = solution_spec(problem, problem.reference_source, reference_filename(problem), calls=calls,
                             cuda=device == "cuda", trusted=True)
        self.worker = pool.open(spec, problem.limits.load_timeout(device == "cuda"))
        if self.worker.load_error is not None:
            self.close()
            raise GradingError(f"{reference_filename(problem)}: the reference failed to load: "
                               f"{self.worker.load_error.message}")

    def __call__(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                 state_keys: tuple[int | str, ...] = ()) -> tuple[Any, dict[Any, Any]]:
        """-> (the output, the graded state of `state_keys` after the call)."""
        outcome = self.worker.call(args, kwargs, snapshot=state_keys, device=self.device,
                                   timeout=self.problem.limits.call_timeout())
        if outcome.status != "ok":
            message = outcome.error.message if outcome.error else outcome.status
            raise GradingError(f"{self.problem.slug}: the reference failed on case '{name}' ({self.device}): "
                               f"{message}")
        return outcome.value, outcome.state

    def close(self) -> None:
        self.worker.close()

    def __enter__(self) -> ReferenceWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
