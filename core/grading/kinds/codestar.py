"""The codestar `test_code` protocol, run unchanged.

`test_code` runs here, in the trusted grading process, with the globals it expects: `ref_obj` (the
reference, here), `user_obj` (a proxy that sends the arguments to the solution's sandboxed process
and returns its safely decoded result), `compare_outputs(act, exp, atol=, rtol=) -> (match, err,
max_diff)`, `summarize_obj`, `cases_results`, `time`, `atol` and `rtol`. The expected outputs never
leave this process.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from types import CodeType
from typing import TYPE_CHECKING, Any

from infrakata.core.catalog.kinds.codestar import CodestarSource
from infrakata.core.catalog.problem import Problem
from infrakata.core.errors import GradingError
from infrakata.core.grading.calls import ReferenceWorker, SolutionCalls, device_for, solution_spec
from infrakata.core.grading.compare import Comparison, Tolerance, compare, describe
from infrakata.core.grading.kinds import CaseDriver, RunOptions, Solution
from infrakata.core.grading.recorded import failure_line, trace_level, with_values
from infrakata.core.grading.results import CaseResult, error_case
from infrakata.core.sandbox.pool import CallResult, CancelToken, WorkerPool
from infrakata.core.sandbox.protocol import SolutionSpec
from infrakata.core.sandbox.recording import TraceLevel
from infrakata.core.sandbox.wire import sanitize
from infrakata.core.torch_stand_in import builtins_with_lazy_torch

if TYPE_CHECKING:
    from infrakata.core.grading.runner import Runner

# test_code's calls are not known ahead: the worker's CPU-time backstop allows this many (the wall
# clock decides each call).
CALLS_BACKSTOP = 16


class SolutionFailed(Exception):
    """Raised into test_code by user_obj when the solution did not return (its except clause records it)."""


class Cancelled(BaseException):
    """Stops test_code for a newer run; a BaseException so `except Exception` in test_code lets it through."""


class _TestCodeRun:
    """The solution side of one test_code run: its calls (workers.SolutionCalls), the comparisons
    test_code makes, both kept per case until test_code records it."""

    def __init__(self, calls: SolutionCalls, values: bool):
        self.solution = calls
        self.calls: list[CallResult] = []  # since the last recorded case
        self.recorded = 0  # cases test_code has recorded so far
        self.comparisons: list[tuple[Comparison, Any, Any]] = []  # (the comparison, actual, expected)
        self.values = values  # record the values of the first failing case: until a case has failed

    @property
    def level(self) -> TraceLevel:
        return trace_level(self.values)

    def user_obj(self, *args: Any, **kwargs: Any) -> Any:
        # test_code records a case after its calls
        outcome = self.solution.call(self.recorded + 1, args, kwargs, trace=self.level)
        if outcome.status == "cancelled":
            raise Cancelled()
        self.calls.append(outcome)
        if outcome.status != "ok":
            raise SolutionFailed(outcome.error.message if outcome.error else outcome.status)
        return outcome.value

    def compare_outputs(self, act: Any, exp: Any, atol: float = 1e-4, rtol: float = 1e-4) -> tuple[bool, str, Any]:
        expected = sanitize(exp)
        result = compare(act, expected, Tolerance(atol, rtol))
        self.comparisons.append((result, act, expected))
        return result.ok, result.message, result.max_abs_diff


class _CaseLog(list[Any]):
    """`cases_results`: each appended dict also takes the calls and comparisons made for it."""

    def __init__(self, session: _TestCodeRun):
        super().__init__()
        self.session = session
        # per case: its calls, its comparisons, what its calls recorded
        self.details: list[tuple[list[CallResult], list[tuple[Comparison, Any, Any]], TraceLevel]] = []

    def append(self, item: Any) -> None:
        super().append(item)
        self.details.append((self.session.calls, self.session.comparisons, self.session.level))
        if isinstance(item, dict) and not item.get("passed"):
            self.session.values = False
        self.session.recorded += 1
        self.session.calls, self.session.comparisons = [], []


def run_test_code(problem: Problem, solution: Solution, pool: WorkerPool,
                  options: RunOptions) -> tuple[list[CaseResult], str]:
    device = device_for(problem, pool)
    spec = solution_spec(problem, solution.source, solution.filename, calls=CALLS_BACKSTOP, cuda=device == "cuda",
                         trusted=options.trusted)
    cancel, entry_line, values = options.cancel, solution.entry_line, options.values
    if problem.grading.device == "cuda":
        # A kernel problem's reference runs where the solution does, in a worker of its own.
        with ReferenceWorker(problem, pool, device, CALLS_BACKSTOP) as reference:
            return _run(problem, spec, pool, cancel, entry_line, device,
                        lambda *args, **kwargs: reference("test_code", args, kwargs)[0], values)
    return _run(problem, spec, pool, cancel, entry_line, device, _reference_here(problem), values)


@functools.lru_cache(maxsize=64)
def _compiled(source: str, filename: str) -> CodeType:
    """A problem's code, compiled once, not at every grading (a batch grades one problem thousands of times)."""
    return compile(source, filename, "exec")


def _trusted_globals(**names: Any) -> dict[str, Any]:
    """Globals for a problem's own code run here: its `import torch` imports torch at the first read, so where
    it only binds torch (the seeds' boilerplate) this process never imports it (core/torch_stand_in.py)."""
    names["__builtins__"] = builtins_with_lazy_torch()
    return names


def _reference_here(problem: Problem) -> Any:
    """The reference's entry point, run in this (trusted) process."""
    reference_globals = _trusted_globals(__name__=f"codestar_reference_{problem.slug.replace('-', '_')}")
    try:
        exec(_compiled(problem.reference_source, f"{problem.source_path}:reference_code"), reference_globals)
    except Exception as error:
        raise GradingError(f"{problem.source_path}: reference_code failed: {type(error).__name__}: {error}") from error
    ref_obj = reference_globals.get(problem.entry_point)
    if not callable(ref_obj):
        raise GradingError(f"{problem.source_path}: reference_code defines no '{problem.entry_point}'")
    return ref_obj


def _run(problem: Problem, spec: SolutionSpec, pool: WorkerPool, cancel: CancelToken | None,
         entry_line: int | None, device: str, ref_obj: Any, values: bool) -> tuple[list[CaseResult], str]:
    solution = SolutionCalls(pool, problem, spec, device, cancel)
    session = _TestCodeRun(solution, values)
    log = _CaseLog(session)
    assert isinstance(problem.source, CodestarSource)
    harness = _trusted_globals(
        __name__=f"codestar_test_{problem.slug.replace('-', '_')}",
        ref_obj=ref_obj, user_obj=session.user_obj, compare_outputs=session.compare_outputs, summarize_obj=describe,
        cases_results=log, time=time, atol=problem.atol, rtol=problem.rtol)
    try:
        exec(_compiled(problem.source.test_code, f"{problem.source_path}:test_code"), harness)
    except Cancelled:
        pass
    except Exception as error:
        raise GradingError(f"{problem.source_path}: test_code failed: {type(error).__name__}: {error}") from error
    finally:
        solution.close()

    results = []
    for index, (entry, (calls, comparisons, level)) in enumerate(zip(log, log.details, strict=False), 1):
        failed_call = next((c for c in calls if c.status != "ok"), None)
        case_id = int(entry.get("case_id", index))
        name = str(entry.get("case_name", f"case {case_id}"))
        time_ms = float(entry.get("time_ms") or 0.0)
        if entry.get("passed"):
            results.append(CaseResult(case_id, name, "passed", time_ms))
        elif failed_call is not None:
            result = with_values(error_case(case_id, name, failed_call, entry_line), failed_call, level)
            result.time_ms = time_ms
            results.append(result)
        else:
            shown, actual, expected = next((c for c in comparisons if not c[0].ok), (Comparison(False), None, None))
            measures = {**shown.measures(), "expected": entry.get("expected_summary") or shown.expected,
                        "actual": entry.get("user_output_summary") or shown.actual}
            # The output compared is the case's last call's.
            last = calls[-1] if calls else CallResult("ok")
            result = CaseResult(case_id, name, "failed", time_ms, str(entry.get("message") or shown.message),
                                failure_line(last, None, entry_line), **measures)
            results.append(with_values(result, last, level, "return", shown if comparisons else None, actual,
                                       expected))
        results[-1].note = solution.notes.get(index, "")  # keyed as user_obj numbers the cases
    return results, "".join(solution.output)


class CodestarCases(CaseDriver):
    """test_code runs them, calling the solution through its proxy: it makes every input, and its cases are all
    it runs."""

    def run(self, runner: Runner, problem: Problem, solution: Solution,
            options: RunOptions) -> tuple[list[CaseResult], str]:
        return run_test_code(problem, solution, runner.pool, options)

    def reference(self, runner: Runner, problem: Problem) -> Callable[..., Any]:
        raise GradingError(f"{problem.slug}: a codestar problem's reference runs inside its test_code")

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        return []  # test_code says its cases only as it runs them


DRIVER = CodestarCases()
