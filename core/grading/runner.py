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
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar, cast

from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.problem import Case, Problem
from infrakata.core.errors import GradingError
from infrakata.core.grading import static
from infrakata.core.grading.calls import ReferenceWorker, device_for, device_name
from infrakata.core.grading.compare import Tolerance
from infrakata.core.grading.kinds import RunOptions, Solution, driver_of
from infrakata.core.grading.results import CaseResult, RunReport, verdict_of, verdict_words
from infrakata.core.sandbox.arena import ArenaLayout
from infrakata.core.sandbox.pool import CancelToken, WorkerPool
from infrakata.core.sandbox.recording import ArgKey
from infrakata.core.sandbox.wire import sanitize, snapshot

T = TypeVar("T")

KEPT_REFERENCE_CALLS = 200  # a kept reference worker's calls (fresh cases) before it is replaced

# A problem's trusted modules are loaded into this process's sys.modules under fixed names: one
# preparation at a time, whichever thread asks (the server's runs, batch grading's threads).
_PREPARING = threading.Lock()


@dataclass
class PreparedCase:
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
class Prepared:
    version: tuple[Any, ...]
    cases: list[PreparedCase]
    device: str  # where the cases run
    layout: ArenaLayout | None = None  # where the cases' unchangeable tensors lie in a run's arena (on the CPU)


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
        # One slot per kind (and its lock): what each prepares per problem (kept), by the problem's path, with its
        # version.
        self._slots: dict[str, tuple[threading.Lock, dict[Path, tuple[Hashable, Any]]]] = {}
        self._keeping = threading.Lock()
        self._drawing = ThreadPoolExecutor(1, thread_name_prefix="kata-fresh-ahead") if fresh_ahead else None
        self._drawn: dict[Path, tuple[tuple[Any, ...], Future[PreparedCase | None]]] = {}
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
        return driver_of(problem).reference(self, problem)

    def case_inputs(self, problem: Problem) -> list[Case]:
        return driver_of(problem).case_inputs(self, problem)

    def prepare(self, problem: Problem) -> Prepared:
        """The cases with their reference outputs, computed once per problem version and device."""
        device = device_for(problem, self.pool)
        version = (_version(problem), device)
        with _PREPARING:
            return self.kept(problem, version, lambda: Prepared(version, self._prepare(problem, device), device))

    def kept(self, problem: Problem, version: Hashable, make: Callable[[], T]) -> T:
        """What a kind prepares once per problem version (its cases and the reference's outputs), made by `make`
        and kept in the kind's slot until the version changes. One preparation at a time per kind, so that two
        threads grading one problem make it once."""
        with self._keeping:
            lock, slot = self._slots.setdefault(problem.kind, (threading.Lock(), {}))
        with lock:
            cached = slot.get(problem.source_path)
            if cached is None or cached[0] != version:
                cached = slot[problem.source_path] = (version, make())
            return cast(T, cached[1])

    def _prepare(self, problem: Problem, device: str, inputs: list[Case] | None = None,
                 kept: ReferenceWorker | None = None) -> list[PreparedCase]:
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
                cases.append(PreparedCase(name, args, kwargs, keys, state_keys, frozen_keys, expected, expected_state,
                                   {k: snapshot(_arg(args, kwargs, k)) for k in frozen_keys}, case.hidden))
        return cases

    def fresh_case(self, problem: Problem, seed: int | None = None) -> PreparedCase | None:
        """The problem's fresh case (cases.py `fresh(seed)`, a LeetGPU challenge's functional test drawn again),
        with its reference output: new inputs every grading (a random seed unless one is given), never shown, so
        that no table of the answers a report showed can pass. None where the problem has no generator."""
        if not kind_of(problem).has_fresh_cases(problem):
            return None
        seed = secrets.randbits(63) if seed is None else seed
        with _PREPARING:
            case = driver_of(problem).fresh_inputs(self, problem, seed)
            if case is None:
                return None
            device = device_for(problem, self.pool)
            kept = self._reference_kept_for(problem, device)
            try:
                return replace(self._prepare(problem, device, [case], kept)[0], fresh=True)
            except GradingError:
                self._drop_kept_reference()  # it may have died in the call: the next grading opens another
                raise

    def fresh_for_run(self, problem: Problem, seed: int | None, version: tuple[Any, ...]) -> PreparedCase | None:
        """The fresh case of this run: the one drawn ahead for it where there is one (fresh_ahead; the next is
        drawn once the run is over) at the problem's `version` (its prepared cases'), else one drawn now, as is
        a given seed's (`kata check-problems`: its draws repeat)."""
        if self._drawing is None or seed is not None:
            return self.fresh_case(problem, seed)
        drawn = self._drawn.pop(problem.source_path, None)
        return drawn[1].result() if drawn is not None and drawn[0] == version else self.fresh_case(problem)

    def draw_ahead(self, problem: Problem, version: tuple[Any, ...]) -> None:
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
    def arena_layout(prepared: Prepared, fresh: PreparedCase | None) -> ArenaLayout:
        """The arena's layout for the prepared cases (made once: their bytes are copied out of the tensors
        then) and the run's fresh case after them."""
        with _PREPARING:
            if prepared.layout is None:
                prepared.layout = ArenaLayout.for_cases([_frozen(c) for c in prepared.cases])
        return prepared.layout if fresh is None else ArenaLayout.for_cases([_frozen(fresh)], after=prepared.layout)

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
                            for i, name in enumerate(driver_of(problem).case_names(self, problem), 1)]
        else:
            report.cases, report.output = driver_of(problem).run(
                self, problem, Solution(source, filename, report.entry_line),
                RunOptions(cancel, values, stop_early, trusted, fresh_seed))
            report.cancelled = cancel is not None and cancel.cancelled
            report.verdict = verdict_of(report.cases)
        report.time_ms = (time.perf_counter() - started) * 1e3
        return report


def _run_reference(problem: Problem, reference: Callable[..., Any], name: str, args: tuple[Any, ...],
                   kwargs: dict[str, Any], state_keys: tuple[ArgKey, ...]) -> tuple[Any, dict[ArgKey, Any]]:
    ref_args, ref_kwargs = copy.deepcopy((args, kwargs))
    try:
        expected = sanitize(reference(*ref_args, **ref_kwargs))
    except Exception as error:
        raise GradingError(f"{problem.slug}: the reference failed on case '{name}': "
                           f"{type(error).__name__}: {error}") from error
    return expected, {k: snapshot(_arg(ref_args, ref_kwargs, k)) for k in state_keys}


def _frozen(case: PreparedCase) -> dict[ArgKey, Any]:
    return {k: _arg(case.args, case.kwargs, k) for k in case.frozen_keys}


def _arg(args: tuple[Any, ...], kwargs: dict[str, Any], key: ArgKey) -> Any:
    return kwargs[key] if isinstance(key, str) else args[key]


def tolerance_of(problem: Problem) -> Tolerance:
    return Tolerance(problem.atol, problem.rtol, problem.grading.comparison, problem.grading.tolerance,
                     problem.grading.exact_types)
