"""Repetitions on inputs that each worker makes itself, from the seeds it is sent: a KernelBench problem's Model
(core/bench/kernelbench.py) and a LeetGPU challenge's performance test (core/bench/leetgpu.py) are timed so. (A kata's
shapes, whose inputs its trusted input maker makes, are core/bench/benchmark.py's.)

The solution and its reference (trusted code only) each run in a worker of their own. The solution warms up in a
request of its own, on a throwaway input set, so that a compile or an autotuning is in no repetition's time. Then
each repetition is one request, on fresh inputs (its seed is sent only when it starts), timed as core/bench/timing.py
times a kata's call. Its output is checked in the reference's worker, which runs the reference on the same inputs
(timing it too, for the speed-up), while the solution's process is stopped. The workers' side is a pair of harness
functions (`Harness`) that answer as timing.time_reps and timing.check_reps do.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from infrakata.core.bench.benchmark import (
    CPU_REPS,
    CPU_WARMUP,
    REPS,
    SPIN_MS,
    TIMED_SEED,
    WARMUP,
    WARMUP_SEED,
    BenchReport,
    Rejected,
    ShapeResult,
    SharedFiles,
    ask,
    read_check,
    read_timing,
    record_best,
    trusted_ms,
    within_host_clock,
)
from infrakata.core.catalog.problem import Problem
from infrakata.core.errors import GradingError, SandboxUnavailable
from infrakata.core.grading.calls import reference_filename, solution_spec
from infrakata.core.grading.results import error_case
from infrakata.core.grading.runner import Runner
from infrakata.core.sandbox.pool import CallResult, CancelToken, Worker, WorkerPool


@dataclass(frozen=True)
class Harness:
    """The workers' side of a kind's repetitions."""

    preload: tuple[str, ...]  # what a worker imports before the solution: the harness module, its clocks
    time: str  # the solution's side ("module:function"), as timing.time_reps answers
    check: str  # the reference's side, as timing.check_reps answers
    reference_entry: str | None = None  # the reference's entry point, where it is not the solution's


@dataclass
class Timed:
    """What the repetitions measured (times on CUDA only)."""

    reps: list[tuple[float | None, float]] = field(default_factory=list)  # the solution's (device ms, wall ms)
    reference_ms: list[float] = field(default_factory=list)  # the reference's device time, per repetition
    checks: list[dict[str, Any]] = field(default_factory=list)  # the reference's answers, per repetition

    def shape(self, shape: tuple[int, ...], where: str) -> ShapeResult:
        """The repetitions as one timed shape: the best time (once each agrees with the host clock), the median,
        the spread, and the reference's best."""
        best_ms, reference_ms = trusted_ms(self.reps, where), min(self.reference_ms)
        device_ms = [d for d, _ in self.reps if d is not None]
        return ShapeResult(shape, "timed", ms=best_ms, median_ms=statistics.median(device_ms),
                           stdev_ms=statistics.pstdev(device_ms), throughput=reference_ms / best_ms,
                           reference_ms=reference_ms)


class Repetitions:
    """The workers and the requests of one benchmark's repetitions."""

    def __init__(self, problem: Problem, pool: WorkerPool, cancel: CancelToken | None, cuda: bool, harness: Harness):
        self.problem, self.pool, self.cancel, self.cuda, self.harness = problem, pool, cancel, cuda, harness
        self.count = REPS if cuda else CPU_REPS
        self.warmup = WARMUP if cuda else CPU_WARMUP
        self.device_name = pool.gpus[0].name if pool.gpus else "GPU"  # the grader itself never touches CUDA

    def _open(self, source: str, filename: str, trusted: bool) -> Worker:
        spec = solution_spec(self.problem, source, filename, calls=2 + self.count, cuda=self.cuda,
                             preload=self.harness.preload, trusted=trusted)
        if trusted and self.harness.reference_entry is not None:
            spec = replace(spec, entry_point=self.harness.reference_entry)
        return self.pool.open(spec, self.problem.limits.load_timeout(self.cuda), cancel=self.cancel)

    def _ask(self, worker: Worker, target: str, payload: dict[str, Any], timeout: float) -> tuple[CallResult, float]:
        return ask(worker, target, payload, timeout, self.cancel)

    def _reference_failed(self, where: str, outcome: CallResult) -> GradingError:
        return GradingError(f"{reference_filename(self.problem)}: the reference failed at {where}: "
                            f"{error_case(1, where, outcome, None).message}")

    def _solution_failed(self, where: str, outcome: CallResult) -> Rejected:
        failed = error_case(1, where, outcome, None)
        return Rejected(f"{where}: {failed.message}", failed.line)

    def run(self, source: str, filename: str, base: dict[str, Any],
            reference_warmup_timeout: float | None = None) -> Timed:
        """The warm-up, then `count` repetitions, each checked. `base`: what every request's payload holds besides
        seed, warmup and repeat (tolerance among it). Raises Rejected, or GradingError where the reference fails."""
        shared_files = SharedFiles()
        timed = Timed()
        base = {**base, "device": "cuda" if self.cuda else "cpu", "timed": self.cuda,
                "spin_ms": SPIN_MS if self.cuda else 0.0}
        try:
            with self._open(source, filename, trusted=False) as solution, \
                    self._open(self.problem.reference_source, reference_filename(self.problem), True) as reference:
                if reference.load_error is not None:
                    raise GradingError(f"{self.problem.source_path}: {reference.load_error.message}")
                if solution.load_error is not None:
                    failed = error_case(1, "load", CallResult("error", error=solution.load_error), None)
                    raise Rejected(f"the solution failed to load: {failed.message}", failed.line)
                warm = {**base, "seed": WARMUP_SEED, "warmup": self.warmup, "repeat": False}
                where = "warming up"
                warmup_timeout = self.problem.limits.shape_timeout(self.warmup)
                outcome, _ = self._ask(solution, self.harness.time, warm, warmup_timeout)
                if outcome.status != "ok":
                    raise self._solution_failed(where, outcome)
                read_timing(outcome.value, where, repetitions=0)
                outcome, _ = self._ask(reference, self.harness.check, {**warm, "solution_output": None},
                                       reference_warmup_timeout or warmup_timeout)
                if outcome.status != "ok":
                    raise self._reference_failed(where, outcome)
                for index in range(self.count):
                    seed = TIMED_SEED + index
                    where = f"repetition {index + 1} of {self.count} (the inputs of seed {seed})"
                    payload = {**base, "seed": seed, "warmup": 0, "repeat": True}
                    timeout = self.problem.limits.shape_timeout(1)
                    outcome, host_ms = self._ask(solution, self.harness.time, payload, timeout)
                    if outcome.status != "ok":
                        raise self._solution_failed(where, outcome)
                    (rep,), output, _ = read_timing(outcome.value, where)
                    shared_files.note(output, solution.pid)
                    with solution.paused():  # nothing it left running can change the output while it is checked
                        checked, _ = self._ask(reference, self.harness.check,
                                               {**payload, "solution_output": output}, timeout * 3)
                    if checked.status != "ok":
                        raise self._reference_failed(where, checked)
                    (reference_rep,), overhead_ms, comparison = read_check(checked.value, where)
                    if not comparison.ok:
                        raise Rejected(f"{where}: {comparison.message}")
                    if self.cuda:
                        within_host_clock(rep, host_ms, overhead_ms, where, spin_ms=SPIN_MS)
                        timed.reference_ms.append(float(reference_rep[0] or 0.0))
                    timed.reps.append(rep)
                    timed.checks.append(checked.value)
        finally:
            shared_files.remove()
        return timed


class RepeatedBench:
    """`kata bench` by repetitions on inputs the workers make: the problem graded as `kata run` grades it first (its
    correctness gate), then the repetitions, timed on CUDA and checked (untimed, each output checked, without it).
    The figure is the speed-up, the reference's best time over the solution's. A kind says what its workers run
    (`harness`), what each request holds (`base`), and what it reports."""

    unit: str  # the figure's, a speed-up over the reference: "x eager"
    graded: str  # what the gate grades, plural: "trials"
    untimed_note: str  # said without CUDA, where nothing is timed
    harness: Harness
    reference_warmup_timeout: float | None = None  # where the reference's first call takes long (a compile)

    def __init__(self, problem: Problem, pool: WorkerPool, cancel: CancelToken | None):
        self.problem, self.pool, self.cancel = problem, pool, cancel

    def check_size(self) -> None:
        """Without CUDA: GradingError where the inputs are over the CPU's budget, saying so."""

    def shape(self) -> tuple[int, ...]:
        """The shape reported for the repetitions."""
        return ()

    def base(self, cuda: bool) -> dict[str, Any]:
        """What every request's payload holds besides the device, the timing, the seed, warmup and repeat."""
        return {}

    def add_figures(self, report: BenchReport, shape: ShapeResult, timed: Timed) -> None:
        """Figures of the kind's own besides the speed-up (torch.compile's)."""

    def measure(self, source: str, path: Path | str, workspace: Path | None = None) -> BenchReport:
        info = self.pool.wait_ready()
        cuda = bool(info.get("cuda"))
        report = BenchReport(self.problem.slug, str(path), self.unit,
                             device="cuda" if cuda else "cpu (Triton interpreter)" if info.get("interpret") else "cpu")
        with Runner(self.pool) as runner:  # closed: its kept reference worker would outlive the benchmark
            graded = runner.run(self.problem, source, path, cancel=self.cancel)
        failed = next((case for case in graded.cases if case.status != "passed"), None)
        report.cancelled = graded.cancelled
        report.line = failed.line if failed is not None else graded.entry_line
        if failed is not None or graded.cancelled:
            report.gate_message = f"{failed.name}: {failed.message}" if failed is not None else "cancelled"
            return report
        try:
            self.pool.check_isolation()
            if not cuda:
                self.check_size()
            repetitions = Repetitions(self.problem, self.pool, self.cancel, cuda, self.harness)
            timed = repetitions.run(source, str(Path(path).resolve()), self.base(cuda), self.reference_warmup_timeout)
        except SandboxUnavailable as error:
            raise GradingError(f"{self.problem.slug}: cannot benchmark: {error}") from None
        except Rejected as rejected:
            report.gate_message, report.line = str(rejected), rejected.line or report.line
            report.cancelled = self.cancel is not None and self.cancel.cancelled
            return report
        report.correct = True
        report.gate_message = f"all {len(graded.cases)} {self.graded} and {repetitions.count} repetitions pass"
        if not cuda:
            report.shapes.append(ShapeResult(self.shape(), "correctness"))
            report.notes.append(self.untimed_note)
            return report
        shape = timed.shape(self.shape(), "the repetitions")
        report.shapes.append(shape)
        report.device = f"{repetitions.device_name} (CUDA)"
        report.geomean, report.reference = shape.throughput, 1.0
        self.add_figures(report, shape, timed)
        if workspace is not None:
            report.best = record_best(workspace, report)
        return report
