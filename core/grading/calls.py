"""The workers a grading opens: the solution's, and for a problem graded on a device, the reference's.

Both are forked from the warm pool under the problem's limits (core/limits.py); the solution's is
sent only the case inputs, the reference's runs trusted code only.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.problem import Problem
from infrakata.core.errors import GradingError
from infrakata.core.grading import static
from infrakata.core.grading.results import compile_note, compile_timeout_message, not_run_after_timeout
from infrakata.core.sandbox.pool import CallResult, CancelToken, Worker, WorkerPool
from infrakata.core.sandbox.protocol import ErrorInfo, SolutionSpec
from infrakata.core.sandbox.recording import Recording, TraceLevel

if TYPE_CHECKING:
    from infrakata.core.sandbox.arena import InputArena


TORCH_AFTER_ALL = "graded in a worker with torch: its code reached torch where a worker without it was tried first"


def solution_spec(problem: Problem, source: str, filename: str, *, calls: int, cuda: bool,
                  preload: tuple[str, ...] = (), trusted: bool = False) -> SolutionSpec:
    """A worker for this problem: the learner's solution, held to the kata's rules (forbidden modules and
    calls, their tripwires, autograd off, a Triton launch per call, eager work limited to allocation and views,
    the memory limit), or (trusted) its
    reference, or code graded as the reference is (its mutants, simulation.py): unconfined, held to none."""
    forbidden_calls = () if trusted else problem.forbidden_calls
    autograd = trusted or problem.grading.autograd
    count_launches = not trusted and problem.grading.triton_launch
    eager_views = not trusted and problem.grading.eager == "views"
    # A tripwire on a module's function imports that module; autograd off, launches and eager work are torch's.
    rules_need_torch = not autograd or count_launches or eager_views or any(
        "." in call and call.partition(".")[0] not in sys.stdlib_module_names for call in forbidden_calls)
    kind = kind_of(problem)
    problem_modules, importable_modules = kind.trusted_modules(problem), kind.importable_modules(problem)
    if preload:  # a harness (the benchmark's) takes the problem's functions as it loads, before the solution does
        problem_modules, importable_modules = (*problem_modules, *importable_modules), ()
    problem_code = (*kind.problem_code(problem),
                    *(module_source for _, _, module_source in (*problem_modules, *importable_modules)))
    torch_free = not (cuda or preload or rules_need_torch) and static.runs_without_torch(source) and all(
        map(static.runs_without_torch, problem_code))
    return SolutionSpec(
        source=source, filename=filename, entry_point=problem.entry_point,
        limits=problem.limits.worker(calls, cuda, trusted),
        forbidden_modules=() if trusted else problem.forbidden_modules, forbidden_calls=forbidden_calls,
        preload=preload, problem_modules=problem_modules, importable_modules=importable_modules, trusted=trusted,
        autograd=autograd, count_launches=count_launches, eager_views=eager_views, torch_free=torch_free,
        schedules=problem.grading.schedules)


def reference_filename(problem: Problem) -> str:
    return kind_of(problem).reference_filename(problem)


def device_for(problem: Problem, pool: WorkerPool) -> str:
    """Where this problem's cases run here: a kernel problem on CUDA where there is one."""
    if problem.grading.device == "cuda" and pool.wait_ready().get("cuda"):
        return "cuda"
    return "cpu"


def device_name(problem: Problem, pool: WorkerPool) -> str:
    """The device this problem is graded on here, as reports name it: `cuda:0 (NVIDIA H200)`, `cpu (Triton
    interpreter)` for a kernel problem where there is no CUDA, or `cpu`. A problem of the CPU never asks the pool
    (which would start the zygote with torch for a run that needs none)."""
    if problem.grading.device != "cuda":
        return "cpu"
    if device_for(problem, pool) == "cuda":
        gpu = pool.gpus[0] if pool.gpus else None
        return f"cuda:{gpu.index} ({gpu.name})" if gpu is not None else "cuda"
    return "cpu (Triton interpreter)" if pool.wait_ready().get("interpret") else "cpu"


class ReferenceWorker:
    """The reference of a problem graded on a device, run in a worker of its own (trusted code only):
    its outputs are made where the solution's are, and come back as plain tensors."""

    def __init__(self, problem: Problem, pool: WorkerPool, device: str, calls: int):
        self.problem, self.device = problem, device
        self.calls = 0
        spec = solution_spec(problem, problem.reference_source, reference_filename(problem), calls=calls,
                             cuda=device == "cuda", trusted=True)
        self.worker = pool.open(spec, problem.limits.load_timeout(spec.cuda))
        if self.worker.load_error is not None:
            self.close()
            raise GradingError(f"{reference_filename(problem)}: the reference failed to load: "
                               f"{self.worker.load_error.message}")

    def __call__(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                 state_keys: tuple[int | str, ...] = ()) -> tuple[Any, dict[Any, Any]]:
        """-> (the output, the graded state of `state_keys` after the call)."""
        # A reference in Triton compiles its kernels on its first call, as a solution does.
        timeout = self.problem.limits.call_timeout(self.worker.spec.cuda, first=self.calls == 0)
        self.calls += 1
        outcome = self.worker.call(args, kwargs, snapshot=state_keys, device=self.device, timeout=timeout)
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


class SolutionCalls:
    """The one loop that drives a solution's worker through a run's calls, whatever the kind: the
    worker is opened when first needed and again after it died (a crash), what the solution prints
    is kept, and after a call exceeds the time limit no further call is made (each answers "not
    run", saying why), so that a run's verdict comes within the limit. A worker's first call may
    compile its kernels: it has the problem's compile allowance beyond the time limit (core/limits.py),
    and a case whose call needed it gets a note saying so (`notes`)."""

    def __init__(self, pool: WorkerPool, problem: Problem, spec: SolutionSpec, device: str,
                 cancel: CancelToken | None, arena: InputArena | None = None):
        self.pool, self.problem, self.spec, self.device, self.cancel = pool, problem, spec, device, cancel
        self.arena = arena  # the run's unchangeable tensor inputs, shared with each worker it opens
        self.worker: Worker | None = None
        self.output: list[str] = []
        self.timed_out: int | None = None  # the case whose call exceeded the time limit
        self.notes: dict[int, str] = {}  # case id -> what its time includes (a first compile)
        self._first = True  # the worker's next call is its first

    @property
    def load_failed(self) -> bool:
        return self.worker is not None and self.worker.load_error is not None

    def call(self, case_id: int, args: tuple[Any, ...], kwargs: dict[str, Any],
             snapshot: tuple[int | str, ...] = (), trace: TraceLevel = "lines",
             graded: tuple[int | str, ...] = ()) -> CallResult:
        """`trace`: what the worker records (core/sandbox/trace.py); the writes to its arguments are
        followed only in a `replay`. `graded`: the arguments whose state is graded (a kernel's outputs in place)."""
        return self._send(case_id, lambda worker, timeout: worker.call(
            args, kwargs, snapshot=snapshot, device=self.device, trace=trace, timeout=timeout, graded=graded))

    def harness(self, case_id: int, target: str, payload: Any, args: tuple[Any, ...] = ()) -> CallResult:
        """A case made by a trusted harness function in the worker (`target`, "module:function", preloaded
        through the spec), given the entry point, `payload` and `args`, under the same rules as a call."""
        return self._send(case_id, lambda worker, timeout: worker.harness(target, payload, timeout=timeout,
                                                                          args=args))

    def _send(self, case_id: int, request: Callable[[Worker, float], CallResult]) -> CallResult:
        if self.cancel is not None and self.cancel.cancelled:
            return CallResult("cancelled", error=ErrorInfo("Cancelled", "cancelled by a newer run", "cancelled"))
        if self.timed_out is not None:
            return CallResult("skipped", error=ErrorInfo("NotRun", not_run_after_timeout(self.timed_out), "skipped"))
        if self.worker is None or not self.worker.alive:
            self.close()
            self.worker = self.pool.open(self.spec, self.problem.limits.load_timeout(self.spec.cuda),
                                         cancel=self.cancel, arena=self.arena)
            self.output.append("".join(self.worker.output_parts))  # what it printed while loading
            self._first = True
        if self.worker.load_error is not None:
            if self.worker.load_error.kind == "needs_torch" and self.spec.torch_free:
                return self._with_torch(case_id, request)
            return CallResult("error", error=self.worker.load_error)
        first, self._first = self._first, False
        outcome = request(self.worker, self.problem.limits.call_timeout(self.spec.cuda, first))
        if outcome.error is not None and outcome.error.kind == "needs_torch" and self.spec.torch_free:
            return self._with_torch(case_id, request)
        self.output.append(outcome.output)
        if first:
            self._judge_first_call(case_id, outcome)
        if outcome.status == "timeout":
            self.timed_out = case_id
        return outcome

    def _with_torch(self, case_id: int, request: Callable[[Worker, float], CallResult]) -> CallResult:
        """The torch-free worker's code reached torch (core/torch_stand_in.py): the guess that it would not
        (static.runs_without_torch) was wrong, and from here the run has a worker with torch, under the same
        limits. What the torch-free worker did is dropped: this case is asked again, and its note says why
        it took longer."""
        self.close()
        self.spec = replace(self.spec, torch_free=False)
        outcome = self._send(case_id, request)
        self.notes[case_id] = " ".join(filter(None, (self.notes.get(case_id), TORCH_AFTER_ALL)))
        return outcome

    def replay(self, args: tuple[Any, ...], kwargs: dict[str, Any], trace: TraceLevel,
               watch: tuple[int | str, ...]) -> Recording | None:
        """A failed call made again, recorded in full: the lines that wrote its graded arguments and, asked
        for, its values. Following writes costs an event per line of the solution's, so a case's first
        call records only its returning line, and only a case that failed is made again. Nothing else of
        the replay counts: not its output, its time or its verdict, and a replay that exceeds the limit
        is stopped without stopping the run. None where there is no live worker to ask."""
        if self.worker is None or not self.worker.alive or (self.cancel is not None and self.cancel.cancelled):
            return None
        outcome = self.worker.call(args, kwargs, device=self.device, trace=trace, watch=watch,
                                   timeout=self.problem.limits.call_timeout(self.spec.cuda, False))
        return outcome.recording if outcome.status in ("ok", "error") else None

    def _judge_first_call(self, case_id: int, outcome: CallResult) -> None:
        """A first call over the time limit: within the compile allowance, a note on its case; over both
        (the wall clock stopped it), a timeout that names both figures."""
        limits = self.problem.limits
        allowance, took = limits.compile_allowance(self.spec.cuda), outcome.time_ms / 1e3
        if allowance <= 0 or took <= limits.time_s:
            return
        if outcome.status != "timeout":
            self.notes[case_id] = compile_note(took, limits.time_s)
        elif outcome.error is not None and took >= limits.time_s + allowance:  # not the CPU-time backstop
            outcome.error = replace(outcome.error, message=compile_timeout_message(limits.time_s, allowance))

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None

    def __enter__(self) -> SolutionCalls:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
