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

from pathlib import Path
from typing import Any

from infrakata.core.bench.benchmark import WARMUP_SEED, BenchReport, ShapeResult
from infrakata.core.bench.repetitions import Harness, RepeatedBench, Timed
from infrakata.core.catalog.problem import Problem
from infrakata.core.errors import GradingError
from infrakata.core.grading.kinds import kernelbench
from infrakata.core.sandbox.pool import CancelToken, WorkerPool

TIME_TRIAL = "infrakata.core.bench.kernelbench_trials:time_trial"
CHECK_TRIAL = "infrakata.core.bench.kernelbench_trials:check_trial"
# What a repetition's worker imports before the solution (SolutionSpec.preload): a trial's harness, and the clocks.
HARNESS = Harness(
    (*kernelbench.TRIAL_HARNESS, "infrakata.core.bench.timing", "infrakata.core.bench.kernelbench_trials"),
    TIME_TRIAL, CHECK_TRIAL, reference_entry="Model")
# torch.compile(Model)'s first call compiles it (Inductor: tens of seconds for a large model), in the reference's
# trusted worker.
COMPILE_TIMEOUT_S = 600.0


def run_kernelbench_bench(problem: Problem, source: str, path: Path | str, pool: WorkerPool,
                          cancel: CancelToken | None = None, workspace: Path | None = None) -> BenchReport:
    """The trials as `kata run` grades them, then the timed repetitions (untimed, checked, without CUDA)."""
    return _KernelBenchBench(problem, pool, cancel).measure(source, path, workspace)


class _KernelBenchBench(RepeatedBench):
    """The solution's ModelNew and the problem's Model, timed on the same fresh inputs, and torch.compile(Model)
    besides, on CUDA."""

    unit, graded, harness = "x eager", "trials", HARNESS
    untimed_note = ("the speed-up over the eager Model and over torch.compile(Model) needs a CUDA GPU: the "
                    "repetitions ran untimed, each output checked; no figure, so fast_p cannot count this run")
    reference_warmup_timeout = COMPILE_TIMEOUT_S

    def __init__(self, problem: Problem, pool: WorkerPool, cancel: CancelToken | None):
        super().__init__(problem, pool, cancel)
        self.module = kernelbench._Module(problem)

    def check_size(self) -> None:
        self.module.check_size()

    def shape(self) -> tuple[int, ...]:
        """The first input's, sized on the meta device (the workers make the inputs)."""
        import torch

        try:
            sized = self.module.sized_inputs(WARMUP_SEED)
        except GradingError:
            return ()
        first = next((x for x in sized if isinstance(x, torch.Tensor)), None)
        return tuple(first.shape) if first is not None else ()

    def base(self, cuda: bool) -> dict[str, Any]:
        return {"init_seed": kernelbench.INIT_SEED, "compiled": cuda, "tolerance": vars(self.module.tolerance())}

    def add_figures(self, report: BenchReport, shape: ShapeResult, timed: Timed) -> None:
        compiled = [float(r["device_ms"]) for check in timed.checks for r in check.get("compiled_reps", [])]
        if compiled and shape.reference_ms is not None:
            report.compiled_reference = shape.reference_ms / min(compiled)
