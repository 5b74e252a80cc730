"""`kata bench` on a KernelBench problem: its correctness trials first, then the speed-up over the eager Model and
over torch.compile(Model).

The repetitions follow the kata benchmark's method (core/bench/benchmark.py, docs/KERNELS.md): warm-up calls on
a throwaway input set, then each repetition on fresh inputs (`get_inputs()` after a seed of its own, made in
each worker from the seed it is sent when the repetition starts), the device's L2 flushed before it, bracketed
by CUDA events behind a device spin; every repetition's output checked on the device in the reference's worker
(the solution's process stopped meanwhile), which times Model, and torch.compile(Model), on the same inputs.
The figure is the speed-up: Model's best time over ModelNew's (in "x eager"). Without CUDA the repetitions run
untimed, as a check of every one's output (the Triton interpreter for a Triton ModelNew), and no figure is
given, so fast_p cannot count the run.
"""

from __future__ import annotations

import statistics
from dataclasses import replace
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
from infrakata.core.grading.kinds import kernelbench
from infrakata.core.grading.results import error_case
from infrakata.core.grading.runner import Runner
from infrakata.core.sandbox.pool import CallResult, CancelToken, Worker, WorkerPool

UNIT = "x eager"
TIME_TRIAL = "infrakata.core.bench.kernelbench_trials:time_trial"
CHECK_TRIAL = "infrakata.core.bench.kernelbench_trials:check_trial"
# What a repetition's worker imports before the solution (SolutionSpec.preload): a trial's harness, and the clocks.
REPETITION_HARNESS = (*kernelbench.TRIAL_HARNESS, "infrakata.core.bench.timing",
                      "infrakata.core.bench.kernelbench_trials")
# torch.compile(Model)'s first call compiles it (Inductor: tens of seconds for a large model), in the reference's
# trusted worker.
COMPILE_TIMEOUT_S = 600.0


def run_kernelbench_bench(problem: Problem, source: str, path: Path | str, pool: WorkerPool,
                          cancel: CancelToken | None = None, workspace: Path | None = None) -> BenchReport:
    """The trials as `kata run` grades them, then the timed repetitions (untimed, checked, without CUDA)."""
    info = pool.wait_ready()
    cuda = bool(info.get("cuda"))
    report = BenchReport(problem.slug, str(path), UNIT,
                         device="cuda" if cuda else "cpu (Triton interpreter)" if info.get("interpret") else "cpu")
    with Runner(pool) as runner:  # closed: its kept reference worker would outlive the benchmark
        graded = runner.run(problem, source, path, cancel=cancel)
    failed = next((case for case in graded.cases if case.status != "passed"), None)
    report.cancelled = graded.cancelled
    report.line = failed.line if failed is not None else graded.entry_line
    if failed is not None or graded.cancelled:
        report.gate_message = f"{failed.name}: {failed.message}" if failed is not None else "cancelled"
        return report
    try:
        pool.check_isolation()
        repetitions = _Repetitions(problem, pool, cancel, cuda)
        shape, compiled_ms = repetitions.run(source, str(Path(path).resolve()))
    except SandboxUnavailable as error:
        raise GradingError(f"{problem.slug}: cannot benchmark: {error}") from None
    except Rejected as rejected:
        report.gate_message, report.line = str(rejected), rejected.line or report.line
        report.cancelled = cancel is not None and cancel.cancelled
        return report
    report.correct = True
    report.shapes.append(shape)
    report.gate_message = f"all {len(graded.cases)} trials and {repetitions.count} repetitions pass"
    if shape.throughput is None:
        report.notes.append("the speed-up over the eager Model and over torch.compile(Model) needs a CUDA GPU: the "
                            "repetitions ran untimed, each output checked; no figure, so fast_p cannot count this run")
        return report
    report.device = f"{repetitions.device_name} (CUDA)"
    report.geomean, report.reference = shape.throughput, 1.0
    if compiled_ms is not None and shape.reference_ms is not None:
        report.compiled_reference = shape.reference_ms / compiled_ms
    if workspace is not None:
        report.best = record_best(workspace, report)
    return report


class _Repetitions:
    """The solution's ModelNew and the problem's Model, each in a worker of its own (the reference's runs
    trusted code only), called on the same fresh inputs, one repetition per request."""

    def __init__(self, problem: Problem, pool: WorkerPool, cancel: CancelToken | None, cuda: bool):
        self.problem, self.pool, self.cancel, self.cuda = problem, pool, cancel, cuda
        self.module = kernelbench._Module(problem)
        if not cuda:
            self.module.check_size()
        self.count = REPS if cuda else CPU_REPS
        self.warmup = WARMUP if cuda else CPU_WARMUP
        self.device_name = pool.gpus[0].name if pool.gpus else "GPU"  # the grader itself never touches CUDA

    def _open(self, source: str, filename: str, trusted: bool) -> Worker:
        spec = solution_spec(self.problem, source, filename, calls=2 + self.count, cuda=self.cuda,
                             preload=REPETITION_HARNESS, trusted=trusted)
        if trusted:
            spec = replace(spec, entry_point="Model")
        return self.pool.open(spec, self.problem.limits.load_timeout(self.cuda), cancel=self.cancel)

    def _ask(self, worker: Worker, target: str, payload: dict[str, Any], timeout: float) -> tuple[CallResult, float]:
        return ask(worker, target, payload, timeout, self.cancel)

    def _reference_failed(self, where: str, outcome: CallResult) -> GradingError:
        return GradingError(f"{reference_filename(self.problem)}: the reference failed at {where}: "
                            f"{error_case(1, where, outcome, None).message}")

    def run(self, source: str, filename: str) -> tuple[ShapeResult, float | None]:
        """-> the repetitions as one shape (the first input's), and torch.compile(Model)'s best time (CUDA).
        Raises Rejected."""
        import torch

        shared_files = SharedFiles()
        try:  # the shape reported: the first input's, sized on the meta device (the workers make the inputs)
            sized = self.module.sized_inputs(WARMUP_SEED)
        except GradingError:
            sized = []
        first = next((x for x in sized if isinstance(x, torch.Tensor)), None)
        shape = ShapeResult(tuple(first.shape) if first is not None else (), "timed" if self.cuda else "correctness")
        base = {"init_seed": kernelbench.INIT_SEED, "device": "cuda" if self.cuda else "cpu", "timed": self.cuda,
                "spin_ms": SPIN_MS if self.cuda else 0.0, "compiled": self.cuda,
                "tolerance": vars(self.module.tolerance())}
        reps: list[tuple[float | None, float]] = []
        eager: list[float] = []
        compiled: list[float] = []
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
                outcome, _ = self._ask(solution, TIME_TRIAL, warm, self.problem.limits.shape_timeout(self.warmup))
                if outcome.status != "ok":
                    failed = error_case(1, where, outcome, None)
                    raise Rejected(f"{where}: {failed.message}", failed.line)
                read_timing(outcome.value, where, repetitions=0)
                outcome, _ = self._ask(reference, CHECK_TRIAL, {**warm, "solution_output": None}, COMPILE_TIMEOUT_S)
                if outcome.status != "ok":
                    raise self._reference_failed(where, outcome)
                for index in range(self.count):
                    seed = TIMED_SEED + index
                    where = f"repetition {index + 1} of {self.count} (the inputs of seed {seed})"
                    payload = {**base, "seed": seed, "warmup": 0, "repeat": True}
                    timeout = self.problem.limits.shape_timeout(1)
                    outcome, host_ms = self._ask(solution, TIME_TRIAL, payload, timeout)
                    if outcome.status != "ok":
                        failed = error_case(1, where, outcome, None)
                        raise Rejected(f"{where}: {failed.message}", failed.line)
                    (rep,), output, _ = read_timing(outcome.value, where)
                    shared_files.note(output, solution.pid)
                    with solution.paused():  # nothing it left running can change the output while it is checked
                        checked, _ = self._ask(reference, CHECK_TRIAL, {**payload, "solution_output": output},
                                               timeout * 3)
                    if checked.status != "ok":
                        raise self._reference_failed(where, checked)
                    (reference_rep,), overhead_ms, comparison = read_check(checked.value, where)
                    if not comparison.ok:
                        raise Rejected(f"{where}: {comparison.message}")
                    if self.cuda:
                        within_host_clock(rep, host_ms, overhead_ms, where, spin_ms=SPIN_MS)
                        eager.append(float(reference_rep[0] or 0.0))
                        compiled += [float(r["device_ms"]) for r in checked.value.get("compiled_reps", [])]
                    reps.append(rep)
        finally:
            shared_files.remove()
        if not self.cuda:
            return shape, None
        shape.ms = trusted_ms(reps, "the repetitions")
        device_ms = [d for d, _ in reps if d is not None]
        shape.median_ms, shape.stdev_ms = statistics.median(device_ms), statistics.pstdev(device_ms)
        shape.reference_ms = min(eager)
        shape.throughput = shape.reference_ms / shape.ms
        return shape, min(compiled) if compiled else None
