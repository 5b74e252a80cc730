"""A problem and a source -> RunReport.

Static checks first; then the trusted side (reference outputs, computed once per problem version
and cached here, in the grading process) and the untrusted side (the solution in a fresh child of
the warm pool, sent only the case inputs) meet in the comparison.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.problem import Case, Problem
from infrakata.core.grading import static
from infrakata.core.grading.calls import ReferenceWorker, SolutionCalls, device_for, device_name, solution_spec
from infrakata.core.grading.compare import Comparison, Tolerance, compare
from infrakata.core.grading.kernel_rules import OUTPUTS, broken_rule
from infrakata.core.grading.kinds import cases_of
from infrakata.core.grading.recorded import failure_line, trace_level, with_values
from infrakata.core.grading.results import (
    CaseResult,
    GradingError,
    RunReport,
    error_case,
    hide_expected,
    no_launch_case,
    not_run_after_timeout,
    too_many_launches_case,
    verdict_of,
    verdict_words,
)
from infrakata.core.sandbox.arena import ArenaLayout, InputArena
from infrakata.core.sandbox.pool import CallResult, CancelToken, WorkerPool
from infrakata.core.sandbox.recording import ArgKey, Recording, TraceLevel
from infrakata.core.sandbox.wire import sanitize, snapshot
from infrakata.core.torch_stand_in import holds_tensor, tensor_bytes, tensors_in

KEPT_REFERENCE_CALLS = 200  # a kept reference worker's calls (fresh cases) before it is replaced

# A problem's trusted modules are loaded into this process's sys.modules under fixed names: one
# preparation at a time, whichever thread asks (the server's runs, batch grading's threads).
_PREPARING = threading.Lock()


@dataclass
class _Case:
    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    keys: dict[ArgKey, str]  # argument key -> parameter name, for every graded argument
    state_keys: tuple[ArgKey, ...]  # arguments whose state after the call is graded
    frozen_keys: tuple[ArgKey, ...]  # arguments that must come back unchanged
    expected: Any
    expected_state: dict[ArgKey, Any]
    originals: dict[ArgKey, Any]  # snapshots of the frozen arguments before the call
    hidden: bool = False  # what it expects is never shown
    fresh: bool = False  # drawn for this grading (cases.py fresh): nothing of it is shown, its inputs neither


@dataclass
class _Prepared:
    version: tuple[Any, ...]
    cases: list[_Case]
    device: str  # where the cases run
    layout: ArenaLayout | None = None  # where the cases' unchangeable tensors lie in a run's arena (on the CPU)


def output_bytes(expected: Any, expected_state: Any) -> int:
    """The bytes a fused kernel must write: the arguments it updates in place, and what it returns beside them (a
    kata that returns the arguments it updated, as rotary returns q and k, writes them once)."""
    written = tensors_in(expected_state)
    returned = [tensor for tensor in tensors_in(expected)
                if not any(tensor.shape == state.shape and tensor.dtype == state.dtype and bool((tensor == state).all())
                           for state in written)]
    return tensor_bytes(written) + tensor_bytes(returned)


def _version(problem: Problem) -> tuple[tuple[str, int], ...]:
    """Changes whenever a file of a native problem changes: the reference cache's key."""
    return tuple((p.name, p.stat().st_mtime_ns) for p in sorted(problem.folder.glob("*")) if p.is_file())


def _holds_state(value: Any) -> bool:
    """Whether a solution could change this argument in place."""
    if isinstance(value, (int, float, bool, str, bytes)) or value is None:
        return False
    if isinstance(value, tuple):
        return any(_holds_state(v) for v in value)
    return True


class Runner:
    """Grades sources against problems over one warm pool: the static checks, the reference's outputs
    (computed once per problem version and kept), the solution's cases in its worker, the verdict."""

    def __init__(self, pool: WorkerPool | None = None, fresh_ahead: bool = False):
        """`fresh_ahead`: once a run has taken a problem's fresh case, draw the next one (its inputs and the
        reference's outputs) on a thread of its own, for the next run of that problem: the server's saves,
        where a few milliseconds of each save were that draw. Not for one-shot or batch grading, whose draws
        ahead would mostly go unused."""
        self.pool = pool or WorkerPool.shared()
        self._prepared: dict[Path, _Prepared] = {}
        self._drawing = ThreadPoolExecutor(1, thread_name_prefix="kata-fresh-ahead") if fresh_ahead else None
        self._drawn: dict[Path, tuple[tuple[Any, ...], Future[_Case | None]]] = {}
        # The reference worker of the device problem graded last, kept for its fresh cases: opening one is a
        # fork and a load (on a GPU, a CUDA context too) that every save of a kernel kata would pay.
        self._kept_reference: tuple[tuple[Any, ...], ReferenceWorker] | None = None

    def close(self) -> None:
        """Close the reference worker kept open (the pool's close would end it too), and draw no more."""
        if self._drawing is not None:
            self._drawing.shutdown(cancel_futures=True)
        with _PREPARING:
            self._drop_kept_reference()

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- the trusted side -------------------------------------------------------------------

    def reference(self, problem: Problem) -> Callable[..., Any]:
        return cases_of(problem).reference(self, problem)

    def case_inputs(self, problem: Problem) -> list[Case]:
        return cases_of(problem).case_inputs(self, problem)

    def prepare(self, problem: Problem) -> list[_Case]:
        """The cases with their reference outputs, computed once per problem version and device."""
        device = device_for(problem, self.pool)
        version = (_version(problem), device)
        with _PREPARING:
            cached = self._prepared.get(problem.source_path)
            if cached is not None and cached.version == version:
                return cached.cases
            cases = self._prepare(problem, device)
            self._prepared[problem.source_path] = _Prepared(version, cases, device)
            return cases

    def _prepare(self, problem: Problem, device: str, inputs: list[Case] | None = None,
                 kept: ReferenceWorker | None = None) -> list[_Case]:
        """`inputs` (default: the problem's cases) with their reference outputs, made on `device` (in `kept`,
        the problem's reference worker, where one is open)."""
        reference = self.reference(problem)
        signature = inspect.signature(reference)
        graded = set(problem.grading.state)
        mutable = set(problem.grading.mutable) | graded
        inputs = self.case_inputs(problem) if inputs is None else inputs
        cases = []
        # A problem graded on a device has its reference run there too, in a worker of its own;
        # the others' runs here, in the grading process.
        context: contextlib.AbstractContextManager[ReferenceWorker | None] = contextlib.nullcontext()
        if problem.grading.device != "cpu":
            context = contextlib.nullcontext(kept) if kept is not None else \
                ReferenceWorker(problem, self.pool, device, len(inputs))
        with context as in_worker:
            for case in inputs:
                name, args, kwargs = case.name, case.args, case.kwargs
                try:
                    bound = signature.bind(*args, **kwargs)
                except TypeError as error:
                    raise GradingError(f"{problem.slug}: case '{name}' does not fit {problem.entry_point}"
                                       f"{signature}: {error}") from None
                keys = {}
                for index, parameter in enumerate(signature.parameters):
                    if parameter in bound.arguments:
                        keys[index if index < len(args) else parameter] = parameter
                state_keys = tuple(k for k, p in keys.items() if p in graded)
                frozen_keys = tuple(k for k, p in keys.items()
                                    if p not in mutable and _holds_state(_arg(args, kwargs, k)))
                if in_worker is not None:
                    expected, expected_state = in_worker(name, args, kwargs, state_keys)
                else:
                    expected, expected_state = _run_reference(problem, reference, name, args, kwargs, state_keys)
                cases.append(_Case(name, args, kwargs, keys, state_keys, frozen_keys, expected, expected_state,
                                   {k: snapshot(_arg(args, kwargs, k)) for k in frozen_keys}, case.hidden))
        return cases

    def fresh_case(self, problem: Problem, seed: int | None = None) -> _Case | None:
        """The problem's fresh case (cases.py `fresh(seed)`, a LeetGPU challenge's functional test drawn again),
        with its reference output: new inputs every grading (a random seed unless one is given), never shown, so
        that no table of the answers a report showed can pass. None where the problem has no generator."""
        if not kind_of(problem).has_fresh_cases(problem):
            return None
        seed = secrets.randbits(63) if seed is None else seed
        with _PREPARING:
            case = cases_of(problem).fresh_inputs(self, problem, seed)
            if case is None:
                return None
            device = device_for(problem, self.pool)
            kept = self._reference_kept_for(problem, device)
            try:
                return replace(self._prepare(problem, device, [case], kept)[0], fresh=True)
            except GradingError:
                self._drop_kept_reference()  # it may have died in the call: the next grading opens another
                raise

    def _fresh_for_run(self, problem: Problem, seed: int | None, version: tuple[Any, ...]) -> _Case | None:
        """The fresh case of this run: the one drawn ahead for it where there is one (fresh_ahead; the next is
        drawn once the run is over) at the problem's `version` (its prepared cases'), else one drawn now, as is
        a given seed's (`kata check-problems`: its draws repeat)."""
        if self._drawing is None or seed is not None:
            return self.fresh_case(problem, seed)
        drawn = self._drawn.pop(problem.source_path, None)
        return drawn[1].result() if drawn is not None and drawn[0] == version else self.fresh_case(problem)

    def _draw_ahead(self, problem: Problem, version: tuple[Any, ...]) -> None:
        if self._drawing is not None and kind_of(problem).has_fresh_cases(problem):
            self._drawn[problem.source_path] = (version, self._drawing.submit(self.fresh_case, problem))

    def _reference_kept_for(self, problem: Problem, device: str) -> ReferenceWorker | None:
        """The reference worker kept for a problem graded on a device (None for the others), opened or
        replaced when it is another problem's or version's, has died, or has made its share of calls (its
        CPU-time backstop counts them). Called under _PREPARING."""
        if problem.grading.device == "cpu":
            return None
        key = (problem.source_path, _version(problem), device)
        if self._kept_reference is not None:
            kept_key, kept = self._kept_reference
            if kept_key == key and not kept.worker.died_meanwhile() and kept.calls < KEPT_REFERENCE_CALLS:
                return kept
            self._drop_kept_reference()
        worker = ReferenceWorker(problem, self.pool, device, KEPT_REFERENCE_CALLS)
        self._kept_reference = (key, worker)
        self.pool.kept.add(worker.worker.pid)
        return worker

    def _drop_kept_reference(self) -> None:
        if self._kept_reference is not None:
            kept = self._kept_reference[1]
            kept.close()
            self.pool.kept.discard(kept.worker.pid)
            self._kept_reference = None

    @staticmethod
    def _kernel_rule(problem: Problem, case: _Case, outcome: CallResult) -> str | None:
        """The kernel kata's rule a passing call broke, as the Triton interpreter measured it (kernel_rules)."""
        names = list(problem.grading.output_names)

        def name_of(key: Any) -> str:
            if key == "return":
                return names[0] if len(names) == 1 else "out"
            if isinstance(key, str) and key.startswith("return["):
                index = int(key[7:-1])
                return names[index] if index < len(names) else f"out[{index}]"
            return case.keys.get(key, str(key))

        def fused() -> int:
            if problem.grading.traffic == OUTPUTS:
                return output_bytes(case.expected, case.expected_state)
            return int(getattr(problem.module("cases"), problem.grading.traffic)(*case.args, **case.kwargs))

        return broken_rule(problem, outcome.kernels, name_of, fused if problem.grading.traffic else None)

    # -- a run ------------------------------------------------------------------------------

    def run(self, problem: Problem, source: str, path: Path | str, cancel: CancelToken | None = None,
            values: bool = False, stop_early: bool = False, trusted: bool = False,
            fresh_seed: int | None = None) -> RunReport:
        """Grade `source`. `values`: record the values of the first failing case (its arguments, the entry
        point's locals, the output beside the expected one) for the editor and `kata run --values`.
        `stop_early` stops at the first case that fails, which decides the verdict (`kata check-problems
        --mutants`: one failing case kills a mutant). `trusted` grades problem code as the reference is
        (`kata check-problems`: the reference, its mutants, simulation.py): held to none of the kata's
        rules (forbidden names, tripwires, a Triton launch, the memory limit). `fresh_seed`: the seed of the
        fresh case (default: a random one; `kata check-problems` draws given ones)."""
        started = time.perf_counter()
        filename = str(Path(path).resolve()) if str(path) else "<solution>"
        entry = static.find_entry_point(source, problem.entry_point)
        report = RunReport(problem=problem.slug, file=str(path), verdict="accepted", title=problem.title,
                           entry_line=entry[0] if entry else None, device=device_name(problem, self.pool))
        report.findings = static.syntax_findings(source) if trusted else \
            static.check(source, problem.forbidden_modules, problem.forbidden_calls)
        if report.findings:
            report.verdict = "syntax_error" if report.findings[0].code == "syntax-error" else "forbidden"
            report.cases = [CaseResult(i, name, "skipped", message=f"not run: {verdict_words(report.verdict)}")
                            for i, name in enumerate(cases_of(problem).case_names(self, problem), 1)]
        else:
            report.cases, report.output = cases_of(problem).run(self, problem, source, filename, cancel,
                                                               report.entry_line, values, stop_early, trusted,
                                                               fresh_seed)
            report.cancelled = cancel is not None and cancel.cancelled
            report.verdict = verdict_of(report.cases)
        report.time_ms = (time.perf_counter() - started) * 1e3
        return report

    def run_cases(self, problem: Problem, source: str, filename: str, cancel: CancelToken | None,
                  entry_line: int | None, values: bool = False, stop_early: bool = False,
                  trusted: bool = False, fresh_seed: int | None = None) -> tuple[list[CaseResult], str]:
        """A native problem's cases, against the reference's outputs (core/grading/kinds.py dispatches here)."""
        cases = self.prepare(problem)
        prepared = self._prepared[problem.source_path]
        device = prepared.device
        # The fresh case last, so that a wrong solution's verdict is its fixed cases' (a mutant's run, which
        # stops at its first failure, is judged on those alone: the same every time).
        fresh = None if stop_early else self._fresh_for_run(problem, fresh_seed, prepared.version)
        cases = cases if fresh is None else [*cases, fresh]
        # Each case's call, and the replay of each that fails (SolutionCalls.replay).
        spec = solution_spec(problem, source, filename, calls=2 * len(cases), cuda=device == "cuda",
                             trusted=trusted)
        if spec.torch_free and any(holds_tensor((case.args, case.kwargs)) for case in cases):
            spec = replace(spec, torch_free=False)
        tolerance = tolerance_of(problem)
        results: list[CaseResult] = []
        # The unchangeable tensor arguments, in memory this process reads after each call (on the CPU).
        arena = InputArena.for_layout(self._layout(prepared, fresh)) if device == "cpu" else None
        with SolutionCalls(self.pool, problem, spec, device, cancel, arena) as calls:
            for index, case in enumerate(cases, 1):
                shared = arena.shared_keys(index - 1) if arena is not None else set()
                args, kwargs = arena.prepare(index - 1, case.args, case.kwargs) if arena is not None \
                    else (case.args, case.kwargs)
                reported = tuple(k for k in case.frozen_keys if k not in shared)
                outcome = calls.call(index, args, kwargs, snapshot=case.state_keys + reported, graded=case.state_keys)
                if outcome.status == "cancelled":
                    break
                if arena is not None and outcome.status == "ok":
                    # What the call did to them, as this process reads it: not the solution's word.
                    outcome.state.update({k: case.originals[k] for k in shared})
                    outcome.state.update(arena.after_call(index - 1))
                if calls.load_failed:
                    results.append(error_case(index, case.name, outcome, entry_line))
                    results += [CaseResult(i, c.name, "skipped", message="not run: the solution failed to load")
                                for i, c in enumerate(cases[index:], index + 1)]
                    break
                result, failure = self._judge(problem, index, case, outcome, tolerance)
                # Values are wanted of the first failing case only (none after it), and never of the fresh one.
                level = trace_level(values and not case.fresh and all(r.status == "passed" for r in results))
                replayed = None
                if failure is not None and not stop_early and outcome.status in ("ok", "error") \
                        and (level == "values" or failure.graded is not None):
                    again = arena.prepare(index - 1, case.args, case.kwargs) if arena is not None else (args, kwargs)
                    replayed = calls.replay(*again, trace=level, watch=case.state_keys + case.frozen_keys)
                results.append(_placed(result, failure, outcome, replayed, level, entry_line, case.hidden))
                if results[-1].status == "passed" and spec.count_launches:  # right, but is it the kernel asked?
                    allowed = problem.grading.launches_per_call
                    if not outcome.launches:
                        results[-1] = no_launch_case(index, case.name, outcome, entry_line)
                    elif allowed and outcome.launches > allowed:
                        results[-1] = too_many_launches_case(index, case.name, outcome, entry_line, allowed)
                    elif (broken := self._kernel_rule(problem, case, outcome)) is not None:
                        results[-1] = CaseResult(index, case.name, "error", outcome.time_ms, broken, entry_line,
                                                 cause="forbidden")
                if outcome.status == "timeout":  # the next call would not be made: say so for every case
                    results += [CaseResult(i, c.name, "skipped", message=not_run_after_timeout(index))
                                for i, c in enumerate(cases[index:], index + 1)]
                    break
                if stop_early and results[-1].status != "passed":
                    results += [CaseResult(i, c.name, "skipped", message=f"not run: case {index} failed")
                                for i, c in enumerate(cases[index:], index + 1)]
                    break
        for result in results:
            result.note = calls.notes.get(result.id, "")
        if arena is not None:
            arena.close()
        if fresh is not None and fresh_seed is None:  # after the run: its draw takes nothing from the run
            self._draw_ahead(problem, prepared.version)
        return results, "".join(calls.output)

    @staticmethod
    def _layout(prepared: _Prepared, fresh: _Case | None) -> ArenaLayout:
        """The arena's layout for the prepared cases (made once: their bytes are copied out of the tensors
        then) and the run's fresh case after them."""
        with _PREPARING:
            if prepared.layout is None:
                prepared.layout = ArenaLayout.for_cases([_frozen(c) for c in prepared.cases])
        return prepared.layout if fresh is None else ArenaLayout.for_cases([_frozen(fresh)], after=prepared.layout)

    def _judge(self, problem: Problem, index: int, case: _Case, outcome: CallResult,
               tolerance: Tolerance) -> tuple[CaseResult, _Failure | None]:
        """The case's result, its line not yet placed, and what failed (None: it passed)."""
        if outcome.status != "ok":
            return error_case(index, case.name, outcome, None), _Failure(None)
        checks: list[_Failure] = [
            _Failure(None, compare(outcome.value, case.expected, tolerance, names=problem.grading.output_names),
                     outcome.value, case.expected)] if problem.grading.graded_return else []
        for key in case.state_keys:
            checks.append(_Failure(key, compare(outcome.state.get(key), case.expected_state[key], tolerance,
                                                root=f"{case.keys[key]} after the call"),
                                   outcome.state.get(key), case.expected_state[key], case.keys[key]))
        exact = Tolerance(atol=0.0, rtol=0.0)
        for key in case.frozen_keys:
            check = compare(outcome.state.get(key), case.originals[key], exact, root=case.keys[key])
            if not check.ok:
                check.message = (f"argument '{case.keys[key]}' was modified in place, which this problem does not "
                                 f"allow: {check.message}")
            checks.append(_Failure(key, check, outcome.state.get(key), case.originals[key], case.keys[key]))
        failed = next((c for c in checks if c.check is not None and not c.check.ok), None)
        if failed is None:
            assert checks[0].check is not None
            return CaseResult(index, case.name, "passed", outcome.time_ms, **checks[0].check.measures()), None
        assert failed.check is not None
        return CaseResult(index, case.name, "failed", outcome.time_ms, failed.check.message,
                          **failed.check.measures()), failed


@dataclass
class _Failure:
    """What made a case fail: its output (`graded` None) or a graded or unchangeable argument, the
    comparison that said so, and the values compared; an outcome that was no output has no comparison."""

    graded: ArgKey | None
    check: Comparison | None = None
    actual: Any = None
    expected: Any = None
    name: str = "return"


def _placed(result: CaseResult, failure: _Failure | None, outcome: CallResult, replayed: Recording | None,
            level: TraceLevel, entry_line: int | None, hidden: bool) -> CaseResult:
    """The case's result on its line, with its values where they were recorded (in the replay, where the
    case was made again), and its expected values hidden where the case is."""
    if failure is not None:
        recorded = outcome if replayed is None else replace(outcome, recording=replayed)
        if failure.check is None:
            result.line = result.line or entry_line
            result = with_values(result, recorded, level)
        else:
            result.line = failure_line(recorded, failure.graded, entry_line)
            result = with_values(result, recorded, level, failure.name, failure.check, failure.actual,
                                 failure.expected)
    return hide_expected(result) if hidden else result


def _run_reference(problem: Problem, reference: Callable[..., Any], name: str, args: tuple[Any, ...],
                   kwargs: dict[str, Any], state_keys: tuple[ArgKey, ...]) -> tuple[Any, dict[ArgKey, Any]]:
    ref_args, ref_kwargs = copy.deepcopy((args, kwargs))
    try:
        expected = sanitize(reference(*ref_args, **ref_kwargs))
    except Exception as error:
        raise GradingError(f"{problem.slug}: the reference failed on case '{name}': "
                           f"{type(error).__name__}: {error}") from error
    return expected, {k: snapshot(_arg(ref_args, ref_kwargs, k)) for k in state_keys}


def _frozen(case: _Case) -> dict[ArgKey, Any]:
    return {k: _arg(case.args, case.kwargs, k) for k in case.frozen_keys}


def _arg(args: tuple[Any, ...], kwargs: dict[str, Any], key: ArgKey) -> Any:
    return kwargs[key] if isinstance(key, str) else args[key]


def tolerance_of(problem: Problem) -> Tolerance:
    return Tolerance(problem.atol, problem.rtol, problem.grading.comparison, problem.grading.tolerance,
                     problem.grading.exact_types)
