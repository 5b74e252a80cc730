"""The kernel throughput benchmark (`kata bench`): the parent side, trusted.

It follows the seed verifier and adds a roofline: a correctness gate first, then the timed shapes, run
in the solution's worker (core/bench/timing.py), each repetition's output checked in a second worker
that runs only trusted code; this process never touches the GPU and never unpickles what a worker
sends, and checks what the solution's process reports. docs/KERNELS.md (The benchmark's method) holds
each step, what is checked, and the units.
"""

from __future__ import annotations

import ast
import hashlib
import math
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infrakata.core import pysource
from infrakata.core.catalog.problem import Benchmark, Gate, Problem
from infrakata.core.errors import GradingError, SandboxUnavailable
from infrakata.core.grading import static
from infrakata.core.grading.calls import reference_filename, solution_spec
from infrakata.core.grading.compare import Comparison
from infrakata.core.grading.results import NO_LAUNCH_MESSAGE, error_case, too_many_launches_message
from infrakata.core.grading.runner import Runner, tolerance_of
from infrakata.core.limits import COPY_TIMEOUT_S
from infrakata.core.progress import store
from infrakata.core.sandbox import procfs
from infrakata.core.sandbox.cuda_ipc import counter_files
from infrakata.core.sandbox.pool import CallResult, CancelToken, Worker, WorkerPool

TIME_REPS = "infrakata.core.bench.timing:time_reps"
CHECK_REPS = "infrakata.core.bench.timing:check_reps"
COPY_BANDWIDTH = "infrakata.core.bench.timing:copy_bandwidth"
# What a benchmark's worker imports before the solution (SolutionSpec.preload): the clocks, its own.
TIMING_HARNESS = ("infrakata.core.bench.timing",)

WARMUP, REPS = 3, 5  # the seed verifier's
CPU_WARMUP, CPU_REPS = 1, 2  # shapes checked without timing: enough to catch a replayed result
WARMUP_SEED, GATE_SEED, TIMED_SEED = 0, 10, 10_000  # correctness shape i uses 10 + i, as cases.py does
COPY_BYTES = 1 << 30
# A tuned kernel can edge past torch's own copy; beyond this margin the timing was not real. Nor is a device time
# under this share of the launch floor (one launch writing one byte, timed the same way in the same run): GPU MODE's
# reference kernels added such a floor after a geomean collapsed to zero.
ROOFLINE_SLACK, FLOOR_SHARE = 1.10, 0.5
# The grader's time around a repetition's request covers its device time and the preparation the trusted
# reference needs for the same inputs; beyond this, work ran off the timed stream, or ahead of the timer.
# (Set generously until measured on a GPU: launch and IPC costs vary by driver.)
HOST_SLACK_FACTOR, HOST_SLACK_MS, HOST_OVERHEAD_FACTOR, CLOCK_SLACK_MS = 1.25, 2.0, 1.5, 0.05
# The device spin queued before each start event (core/bench/timing.py): long enough to cover the host's side
# of a call (its wrapper, Triton's launch, allocating its outputs) so that none of it is timed, as the seed's
# start event waits behind its input generation. Chosen here, not by the solution's process; the host-clock
# check subtracts it. (Set without a GPU measurement: a call's host side is tens of microseconds to about a
# millisecond for the largest allocations.)
SPIN_MS = 2.0
UNITS = {"GB/s": 2.0 ** 30, "TFLOP/s": 1e12}


@dataclass
class ShapeResult:
    shape: tuple[int, ...]
    kind: str  # "correctness" (checked, untimed) or "timed"
    check: str = "passed"  # or why the shape failed (the gate stops at the first failing shape)
    ms: float | None = None  # best repetition
    median_ms: float | None = None
    stdev_ms: float | None = None  # the repetitions' spread
    throughput: float | None = None  # in the problem's unit
    reference_ms: float | None = None


@dataclass
class BenchReport:
    problem: str
    file: str
    unit: str
    device: str = ""
    correct: bool = False
    gate_message: str = ""
    line: int | None = None  # where a failure shows in the solution file (1-based): else the entry point's def
    shapes: list[ShapeResult] = field(default_factory=list)
    geomean: float | None = None
    roofline: float | None = None
    reference: float | None = None
    compiled_reference: float | None = None  # torch.compile of the reference, in the same unit (KernelBench)
    best: float | None = None  # the best figure recorded for this problem on this device
    notes: list[str] = field(default_factory=list)
    cancelled: bool = False
    gate: str = ""  # the problem's performance gate, in words ("50% of the copy roofline"), or ""
    # Against the gate, once correct: "accepted", "below_gate", or "skipped" (no GPU figure to hold to it).
    # None: not correct, or the problem has no gate (then a correct run is accepted).
    performance: str | None = None

    @property
    def accepted(self) -> bool:
        return self.correct and self.performance != "below_gate"

    @property
    def fraction_of_roofline(self) -> float | None:
        return self.geomean / self.roofline if self.geomean and self.roofline else None

    @property
    def speedup_vs_reference(self) -> float | None:
        return self.geomean / self.reference if self.geomean and self.reference else None

    @property
    def speedup_vs_compiled(self) -> float | None:
        return self.geomean / self.compiled_reference if self.geomean and self.compiled_reference else None


class Rejected(Exception):
    """The solution failed the gate; the message says why."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line


def geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(max(v, 1e-12)) for v in values) / len(values))


def run_benchmark(problem: Problem, source: str, path: Path | str, pool: WorkerPool,
                  cancel: CancelToken | None = None, workspace: Path | None = None,
                  shapes: Sequence[Sequence[int]] | None = None) -> BenchReport:
    """Gate, time and compare a solution. `shapes` replaces the timed shapes (tests use small ones to
    run the timed protocol through the interpreter); by default they are the problem's, on CUDA only.
    Raises GradingError when the problem itself cannot be benchmarked."""
    if problem.benchmark is None:
        raise GradingError(f"{problem.slug} has no benchmark ([benchmark] in problem.toml)")
    filename = str(Path(path).resolve())
    report = BenchReport(problem.slug, str(path), problem.benchmark.unit)
    findings = static.check(source, problem.forbidden_modules, problem.forbidden_calls)
    if findings:
        report.gate_message = f"line {findings[0].line}: {findings[0].message}"
        report.line = findings[0].line
        return report
    info = pool.wait_ready()
    cuda = bool(info.get("cuda"))
    report.device = "cpu (Triton interpreter)" if info.get("interpret") else "cpu"
    if not cuda:
        report.notes.append("throughput needs a CUDA GPU; ran the correctness gate through the Triton "
                            "interpreter" if info.get("triton") else
                            "throughput needs a CUDA GPU, and Triton is not installed here (Linux on x86-64 "
                            "only): only a solution without Triton can pass the correctness gate")
    try:
        pool.check_isolation()  # before the rules' grading, which would open workers the policy refuses
    except SandboxUnavailable as error:  # strict isolation without a layer
        raise GradingError(f"{problem.slug}: cannot benchmark: {error}") from None
    if not cuda:
        broken = _rule_broken(problem, source, path, pool, cancel)
        if broken is not None:
            report.gate_message, report.line = broken
            return report
    timed_shapes = [tuple(s) for s in (problem.benchmark.shapes if shapes is None and cuda else shapes or ())]
    session = _BenchWorkers(problem, problem.benchmark, pool, cancel, cuda)
    try:
        with session, session.open_solution(source, filename) as solution, session.open_reference() as reference:
            if cancel is not None and cancel.cancelled:
                raise Rejected("cancelled")
            if reference.load_error is not None:
                raise GradingError(f"{reference_filename(problem)}: {reference.load_error.message}")
            if solution.load_error is not None:
                failed = error_case(1, "load", CallResult("error", error=solution.load_error), None)
                raise Rejected(f"the solution failed to load: {failed.message}", failed.line)

            def gate(shape: tuple[int, ...], kind: str, seeds: list[int]) -> None:
                try:
                    report.shapes.append(session.check(solution, reference, shape, kind, seeds, report.roofline))
                except Rejected as rejected:
                    report.shapes.append(ShapeResult(tuple(shape), kind, check=str(rejected)))
                    raise

            for index, shape in enumerate(problem.benchmark.correctness_shapes):
                gate(shape, "correctness", [GATE_SEED + index])
            if cuda:
                copy_bandwidth, session.launch_floor_ms, report.device = session.copy_bandwidth(reference)
                session.reference_times = ReferenceTimes(workspace, problem, report.device)
                # A copy bounds bandwidth, not FLOP/s.
                report.roofline = copy_bandwidth if problem.benchmark.unit == "GB/s" else None
            for shape in timed_shapes:
                gate(shape, "timed", [TIMED_SEED + r for r in range(REPS if cuda else CPU_REPS)])
    except SandboxUnavailable as error:  # strict isolation without a layer; a GPU that admits one process
        raise GradingError(f"{problem.slug}: cannot benchmark: {error}") from None
    except Rejected as rejected:
        entry = static.find_entry_point(source, problem.entry_point)
        report.gate_message, report.line = str(rejected), rejected.line or (entry[0] if entry else None)
        report.cancelled = cancel is not None and cancel.cancelled
        return report
    report.correct = True
    report.gate_message = "all shapes pass" if timed_shapes else "all correctness shapes pass"
    timed = [(s.shape, s.throughput, s.reference_ms) for s in report.shapes
             if s.throughput is not None and s.reference_ms is not None]
    if timed:
        report.geomean = geomean([throughput for _, throughput, _ in timed])
        report.reference = geomean([session.throughput(shape, reference_ms) for shape, _, reference_ms in timed])
        if workspace is not None:
            report.best = record_best(workspace, report)
    judge_performance(report, problem.benchmark.gate)
    return report


def _rule_broken(problem: Problem, source: str, path: Path | str, pool: WorkerPool,
                 cancel: CancelToken | None) -> tuple[str, int | None] | None:
    """Without CUDA, the kata's rules that the Triton interpreter measures in a grading (tiles, traffic,
    provenance, the eager guard: docs/KERNELS.md) hold for the benchmark too: the first case `kata run` finds
    forbidden, as (message, line); None where none is. Wrong values are left to the gate's own shapes."""
    with Runner(pool) as runner:  # closed: its kept reference worker would outlive the benchmark
        graded = runner.run(problem, source, path, cancel=cancel)
    if graded.verdict != "forbidden":
        return None
    case = next(c for c in graded.cases if c.status != "passed")
    return f"line {case.line}: forbidden in {case.name}: {case.message}", case.line


def gate_words(gate: Gate) -> str:
    return f"{gate.roofline:.0%} of the copy roofline" if gate.roofline is not None else \
        f"{gate.speedup:g}x the eager reference"


def judge_performance(report: BenchReport, gate: Gate | None) -> None:
    """Hold a correct run's figures to the problem's gate: set `performance`, and say why when skipped."""
    if gate is None or not report.correct:
        return
    report.gate = gate_words(gate)
    measured = report.fraction_of_roofline if gate.roofline is not None else report.speedup_vs_reference
    if measured is None:
        report.performance = "skipped"
        why = "it needs a CUDA GPU" if report.geomean is None else "the copy roofline was not measured"
        report.notes.append(f"the performance gate ({report.gate}) was skipped: {why}")
        return
    threshold = gate.roofline if gate.roofline is not None else gate.speedup
    report.performance = "accepted" if threshold is not None and measured >= threshold else "below_gate"



def _state_positions(problem: Problem) -> list[int]:
    """Where the arguments graded after the call ([grading] state) sit among the reference's parameters:
    the benchmark checks what a call writes into them, as `kata run` does."""
    if not problem.grading.state:
        return []
    tree = pysource.parse(problem.reference_source, reference_filename(problem))
    entry = next((node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == problem.entry_point),
                 None)
    parameters = [] if entry is None else [a.arg for a in (*entry.args.posonlyargs, *entry.args.args)]
    missing = [name for name in problem.grading.state if name not in parameters]
    if missing:
        raise GradingError(f"{reference_filename(problem)}: {problem.entry_point} has no positional parameter "
                           f"{missing[0]!r}, which [grading] state names")
    return [parameters.index(name) for name in problem.grading.state]


class _BenchWorkers:
    """The two workers of one benchmark: the solution, and the reference (trusted code only)."""

    def __init__(self, problem: Problem, benchmark: Benchmark, pool: WorkerPool, cancel: CancelToken | None,
                 cuda: bool):
        self.problem, self.benchmark, self.pool, self.cancel, self.cuda = problem, benchmark, pool, cancel, cuda
        # Known from an earlier run (once the device is): then the reference's repetitions here only make the
        # outputs every repetition is checked against.
        self.reference_times: ReferenceTimes | None = None
        self.launch_floor_ms: float | None = None  # the device's, measured with its copy bandwidth
        self.shared_files = SharedFiles()
        bench = benchmark
        self.tolerance = tolerance_of(problem)
        self.cases = problem.module("cases")
        for name in (bench.make_inputs, bench.work):
            if not callable(getattr(self.cases, name, None)):
                raise GradingError(f"{problem.folder / 'cases.py'}: defines no function '{name}' "
                                   f"(named in [benchmark] of problem.toml)")
        self.work: Callable[..., float] = getattr(self.cases, bench.work)
        self.state_positions = _state_positions(problem)
        self.calls = (CPU_WARMUP + 1) * len(bench.correctness_shapes) + (WARMUP + REPS) * len(bench.shapes)

    def __enter__(self) -> _BenchWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shared_files.remove()  # both workers are gone by now: nobody holds the files

    def open_solution(self, source: str, filename: str) -> Worker:
        return self._open(source, filename, trusted=False)

    def open_reference(self) -> Worker:
        return self._open(self.problem.reference_source, reference_filename(self.problem), trusted=True)

    def _open(self, source: str, filename: str, trusted: bool) -> Worker:
        spec = solution_spec(self.problem, source, filename, calls=self.calls, cuda=self.cuda, preload=TIMING_HARNESS,
                             trusted=trusted)
        return self.pool.open(spec, self.problem.limits.load_timeout(self.cuda), cancel=self.cancel)

    def throughput(self, shape: tuple[int, ...], ms: float) -> float:
        return self.work(*shape) / (ms / 1e3) / UNITS[self.benchmark.unit]

    def _harness(self, worker: Worker, target: str, payload: dict[str, Any],
                 timeout: float) -> tuple[CallResult, float]:
        return ask(worker, target, payload, timeout, self.cancel)

    def check(self, solution: Worker, reference: Worker, shape: tuple[int, ...], kind: str,
              seeds: list[int], roofline: float | None) -> ShapeResult:
        """Run one shape in the solution's worker: its warm-up calls, then a repetition per request (each
        seed is sent only when its repetition starts, so nothing can be computed ahead), and check every
        repetition's output in the reference's worker (the solution's process stopped meanwhile); then the
        times against this process's own clock and the roofline. Raises Rejected."""
        timed = self.cuda and kind == "timed"
        warmup = WARMUP if timed else CPU_WARMUP
        where = f"{kind} shape {shape}"
        reps: list[tuple[float | None, float]] = []
        reference_reps: list[tuple[float | None, float]] = []
        known_ms = self.reference_times.known.get(shape) if timed and self.reference_times else None
        base = {"module": self.cases.__name__, "make_inputs": self.benchmark.make_inputs, "shape": list(shape),
                "device": "cuda" if self.cuda else "cpu", "timed": timed, "warmup": 0, "warmup_seed": WARMUP_SEED,
                "spin_ms": SPIN_MS if timed else 0.0, "state_positions": self.state_positions,
                "state_names": list(self.problem.grading.state)}
        # The warm-up calls (on seed WARMUP_SEED's inputs) are a request of their own, so that what they take
        # (a compile, an autotuning) is in no repetition's time. The reference warms up only to be timed.
        self._warm_up(solution, {**base, "warmup": warmup, "seeds": []}, where, trusted=False)
        if timed and known_ms is None:
            self._warm_up(reference, {**base, "warmup": warmup, "seeds": []}, where, trusted=True)
        timeout = self.problem.limits.shape_timeout(1)
        for index, seed in enumerate(seeds):
            payload = {**base, "seeds": [seed]}
            outcome, host_ms = self._harness(solution, TIME_REPS, payload, timeout)
            if outcome.status != "ok":
                failed = error_case(1, where, outcome, None)
                raise Rejected(f"{where}: {failed.message}", failed.line)
            allowed = self.problem.grading.launches_per_call
            (rep,), output, _ = read_timing(outcome.value, where, launches_allowed=allowed)
            self.shared_files.note(output, solution.pid)
            # Stopped, nothing the solution left running (a thread, a process) can change the output
            # between its repetition and the check.
            with solution.paused():
                checked, _ = self._harness(reference, CHECK_REPS, {
                    **payload, "solution_output": output, "output_names": list(self.problem.grading.output_names),
                    "tolerance": vars(self.tolerance)}, timeout)
            if checked.status != "ok":
                raise GradingError(f"{reference_filename(self.problem)}: the reference failed at {where}: "
                                   f"{error_case(1, where, checked, None).message}")
            (reference_rep,), overhead_ms, comparison = read_check(checked.value, where)
            if not comparison.ok:
                warmed = f" (after {warmup} warm-up call{'s' * (warmup > 1)} on seed {WARMUP_SEED}'s)" if warmup else ""
                repetition = f", repetition {index + 1} of {len(seeds)}" if len(seeds) > 1 else ""
                raise Rejected(f"{where}{repetition}, the call on seed {seed}'s inputs{warmed if index == 0 else ''}: "
                               f"{comparison.message}")
            if self.problem.grading.triton_launch and not outcome.launches:  # right, but not a kernel
                raise Rejected(f"{where}: {NO_LAUNCH_MESSAGE}")
            if timed:
                within_host_clock(rep, host_ms, overhead_ms, where, spin_ms=SPIN_MS)
            reps.append(rep)
            reference_reps.append(reference_rep)
        result = ShapeResult(shape, kind)
        if timed:
            result.ms = trusted_ms(reps, where)
            device_ms = [d for d, _ in reps if d is not None]
            result.median_ms, result.stdev_ms = statistics.median(device_ms), statistics.pstdev(device_ms)
            result.throughput = self.throughput(shape, result.ms)
            if known_ms is None:
                known_ms = min(r[0] for r in reference_reps if r[0] is not None)
                if self.reference_times is not None:
                    self.reference_times.record(shape, known_ms)
            result.reference_ms = known_ms
            possible_figure(result, roofline, self.launch_floor_ms)
        return result

    def _warm_up(self, worker: Worker, payload: dict[str, Any], where: str, trusted: bool) -> None:
        if not payload["warmup"]:
            return
        outcome, _ = self._harness(worker, TIME_REPS, payload, self.problem.limits.shape_timeout(payload["warmup"]))
        if trusted and outcome.status != "ok":
            raise GradingError(f"{reference_filename(self.problem)}: the reference failed warming up at {where}: "
                               f"{error_case(1, where, outcome, None).message}")
        if outcome.status != "ok":
            failed = error_case(1, where, outcome, None)
            raise Rejected(f"{where}: {failed.message}", failed.line)  # as a repetition's failure reads
        read_timing(outcome.value, f"{where}, warming up", repetitions=0)

    def copy_bandwidth(self, reference: Worker) -> tuple[float, float, str]:
        """The device's copy bandwidth (GB/s), its launch floor (ms) and its name, from the reference's trusted
        process."""
        outcome, _ = self._harness(reference, COPY_BANDWIDTH, {"bytes": COPY_BYTES, "warmup": WARMUP, "reps": REPS},
                                   timeout=COPY_TIMEOUT_S)
        if outcome.status != "ok":
            raise GradingError(f"measuring the device's copy bandwidth failed: "
                               f"{error_case(1, 'copy', outcome, None).message}")
        value = outcome.value
        best = min(rep["device_ms"] for rep in value["reps"])
        floor = min(rep["device_ms"] for rep in value["floor_reps"])
        return value["bytes"] / (best / 1e3) / UNITS["GB/s"], floor, f"{value['device']} (CUDA)"


def ask(worker: Worker, target: str, payload: dict[str, Any], timeout: float,
        cancel: CancelToken | None) -> tuple[CallResult, float]:
    """A harness request of a benchmark's worker. -> its answer and this process's own wall time around it,
    in ms. Raises Rejected("cancelled")."""
    if cancel is not None and cancel.cancelled:
        raise Rejected("cancelled")
    started = time.perf_counter()
    result = worker.harness(target, payload, timeout=timeout)
    if result.status == "cancelled":
        raise Rejected("cancelled")
    return result, (time.perf_counter() - started) * 1e3


def read_timing(value: Any, where: str, repetitions: int = 1,
                launches_allowed: int = 0) -> tuple[list[tuple[float | None, float]], Any, float]:
    """The timing harness's answer, validated: a solution may have tampered with the harness itself.
    `launches_allowed`: the kata's launches per call ([grading] launches_per_call; 0: any number).
    -> (its repetitions as (device ms, wall ms), its output, the time it spent besides the calls)."""
    try:
        reps = [(None if r["device_ms"] is None else float(r["device_ms"]), float(r["wall_ms"]))
                for r in value["reps"]]
        replaced = [str(name) for name in value["replaced"]]
        output, overhead_ms = value["output"], float(value["overhead_ms"])
        threads_left = max([float(r.get("threads_left") or 0.0) for r in value["reps"]], default=0.0)
        launches = max([int(r.get("launches") or 0) for r in value["reps"]], default=0)
    except (TypeError, KeyError, ValueError) as error:
        raise Rejected(f"{where}: the timing harness's answer was malformed ({type(error).__name__}: {error}): "
                        f"the solution interfered with the harness") from None
    if replaced:
        raise Rejected(f"{where}: the solution replaced {', '.join(replaced)}; the benchmark times with its own "
                        f"clocks and refuses a run that patches them")
    if len(reps) != repetitions:
        raise Rejected(f"{where}: the timing harness answered for {len(reps)} repetitions where {repetitions} "
                        f"were asked: the solution interfered with the harness")
    if launches_allowed and launches > launches_allowed:
        raise Rejected(f"{where}: {too_many_launches_message(launches, launches_allowed)}")
    if threads_left > 0:
        raise Rejected(f"{where}: the call left a thread it started running after it returned: what that thread "
                        f"does is in no repetition's time (on CUDA its writes would even reach the output as it is "
                        f"checked); finish the work inside the call")
    return reps, output, overhead_ms


def read_check(value: Any, where: str) -> tuple[list[tuple[float | None, float]], float, Comparison]:
    """The reference worker's answer (trusted code): its repetition, what it spent besides the call
    (making the inputs, the L2 flush), and the comparison it made."""
    reps, _, overhead_ms = read_timing({**value, "output": None, "replaced": []}, f"the reference at {where}")
    return reps, overhead_ms, Comparison(**value["comparison"])


def within_host_clock(rep: tuple[float | None, float], host_ms: float, reference_overhead_ms: float,
                      where: str, spin_ms: float = 0.0) -> None:
    """One repetition's device time against this process's own clock around its request: never more
    than the request took, and no less than what the request took besides the device spin before its
    start event and the work the trusted reference's process needs for the same inputs (else the work
    ran where the timer does not see it, or before it started)."""
    device, _ = rep
    if device is None or not math.isfinite(device) or device <= 0:
        raise Rejected(f"{where}: a repetition reported no positive device time")
    if device > host_ms:
        raise Rejected(f"{where}: a repetition reported {device:.3f} ms on the device, more than the "
                        f"{host_ms:.3f} ms the grader measured around it")
    unseen = host_ms - device - spin_ms - HOST_OVERHEAD_FACTOR * reference_overhead_ms
    if unseen > HOST_SLACK_FACTOR * device + HOST_SLACK_MS:
        raise Rejected(f"{where}: the repetition took {host_ms:.3f} ms by the grader's clock, {unseen:.3f} ms more "
                        f"than its {device:.3f} ms on the timed CUDA stream, the {spin_ms:g} ms device spin before "
                        f"it and the {reference_overhead_ms:.3f} ms the reference needs to prepare it: launch the "
                        f"work on the current stream, inside the call (work elsewhere, or done ahead, cannot be "
                        f"timed fairly)")


def trusted_ms(reps: list[tuple[float | None, float]], where: str) -> float:
    """The best repetition's device time, once each agrees with the host clock around its call."""
    timed = [(d, wall) for d, wall in reps if d is not None and math.isfinite(d) and d > 0]
    if len(timed) != len(reps) or not timed:
        raise Rejected(f"{where}: a repetition reported no positive device time")
    for d, wall in timed:
        if d > wall + CLOCK_SLACK_MS:
            raise Rejected(f"{where}: a repetition reported {d:.3f} ms on the device but took {wall:.3f} ms on the "
                            f"host: the timer was tampered with")
    return min(d for d, _ in timed)


def possible_figure(shape: ShapeResult, roofline: float | None, launch_floor_ms: float | None) -> None:
    """Refuse a figure past physics, measured against the same run's device: a rate above its copy roofline
    (with ROOFLINE_SLACK), or a time under its launch floor (FLOOR_SHARE of it). Either means the timing was
    not of the work: nothing is printed of it."""
    if shape.throughput is not None and roofline and shape.throughput > roofline * ROOFLINE_SLACK:
        raise Rejected(f"timed shape {shape.shape}: impossible figure: {shape.throughput:.1f} GB/s is above the "
                        f"device's copy bandwidth ({roofline:.1f} GB/s, measured in this run): no memory-bound kernel "
                        f"moves its bytes faster than a copy, so the timing was not of the work")
    if shape.ms is not None and launch_floor_ms and shape.ms < launch_floor_ms * FLOOR_SHARE:
        raise Rejected(f"timed shape {shape.shape}: impossible figure: {shape.ms * 1e3:.2f} us on the device, under "
                        f"the {launch_floor_ms * 1e3:.2f} us one launch writing one byte takes on it (measured in this "
                        f"run): the timing was not of the work")


# -- torch's shared-memory files --------------------------------------------------------------

SHM = Path("/dev/shm")


class SharedFiles:
    """The reference-counter files a solution's process made in /dev/shm for its CUDA IPC handles. torch
    removes one when its last user lets go, which a killed worker never does: left there, Docker's 64 MB
    /dev/shm fills after some hundreds of benchmarks. Each is noted while its maker lives, if that process
    owns it (a handle naming another's file is ignored), and removed once both workers are gone."""

    def __init__(self, root: Path = SHM):
        self.root = root
        self.noted: dict[str, int] = {}  # name -> its owner's uid

    def note(self, output: Any, maker_pid: int) -> None:
        owner = procfs.real_uid(maker_pid)
        try:
            named = counter_files(output)
        except RecursionError:  # nested beyond reason: the comparison rejects it anyway
            return
        for name in named - self.noted.keys():
            try:
                if owner is not None and os.lstat(self.root / name).st_uid == owner:
                    self.noted[name] = owner
            except OSError:
                continue

    def remove(self) -> None:
        for name, owner in self.noted.items():
            path = self.root / name
            try:
                if os.lstat(path).st_uid == owner:
                    path.unlink()
            except OSError:
                continue
        self.noted.clear()


class ReferenceTimes:
    """The eager reference's best time per timed shape on one device, kept from the first run of this version
    of the problem (its source, its input maker in cases.py, the protocol it is timed by)."""

    def __init__(self, workspace: Path | None, problem: Problem, device: str):
        digest = hashlib.sha256(problem.reference_source.encode())
        cases = problem.folder / "cases.py"
        digest.update(cases.read_bytes() if cases.is_file() else b"")
        digest.update(f"{WARMUP} {REPS} {SPIN_MS}".encode())
        self.workspace, self.key = workspace, (problem.slug, digest.hexdigest()[:16], device)
        self.known = store.reference_times(workspace, *self.key)

    def record(self, shape: Sequence[int], ms: float) -> None:
        self.known[tuple(shape)] = ms
        store.record_reference_time(self.workspace, *self.key, tuple(shape), ms)


def record_best(workspace: Path, report: BenchReport) -> float:
    """Keep the best geomean per problem and device; -> the best after this run."""
    return store.record_bench_best(workspace, report.problem, report.device, report.unit, report.geomean,
                                   report.roofline, report.reference, report.file)


# -- output ------------------------------------------------------------------------------------

def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def bench_to_dict(report: BenchReport) -> dict[str, Any]:
    return {
        "problem": report.problem, "file": report.file, "device": report.device, "unit": report.unit,
        "correct": report.correct, "gate_message": report.gate_message, "line": report.line,
        "shapes": [{"shape": list(s.shape), "kind": s.kind, "ms": _round(s.ms, 4), "median_ms": _round(s.median_ms, 4),
                    "stdev_ms": _round(s.stdev_ms, 4), "gbps": _round(s.throughput),
                    "reference_ms": _round(s.reference_ms, 4), "check": s.check} for s in report.shapes],
        "geomean_gbps": _round(report.geomean), "roofline_gbps": _round(report.roofline),
        "fraction_of_roofline": _round(report.fraction_of_roofline, 4),
        "reference_gbps": _round(report.reference), "speedup_vs_reference": _round(report.speedup_vs_reference),
        "speedup_vs_compiled": _round(report.speedup_vs_compiled),
        "best_gbps": _round(report.best), "notes": report.notes, "cancelled": report.cancelled,
        "gate": report.gate or None, "performance": report.performance, "accepted": report.accepted,
    }
