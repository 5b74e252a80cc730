"""`kata bench` on a KernelBench problem: its correctness trials first, then the speed-up over the eager Model
and over torch.compile(Model), which only a CUDA GPU measures.

Without CUDA the trials run (Triton through its interpreter) and no figure is given, as for every kernel
problem (docs/KERNELS.md, KernelBench problems).
"""

from __future__ import annotations

from pathlib import Path

from infrakata.core.bench.benchmark import BenchReport
from infrakata.core.catalog.problem import Problem
from infrakata.core.grading.results import GradingError
from infrakata.core.grading.runner import Runner
from infrakata.core.sandbox.pool import CancelToken, WorkerPool

UNIT = "x eager"


def run_kernelbench_bench(problem: Problem, source: str, path: Path | str, pool: WorkerPool,
                          cancel: CancelToken | None = None) -> BenchReport:
    """The trials as `kata run` grades them; on the CPU, the report says the speed-up needs a GPU."""
    info = pool.wait_ready()
    if info.get("cuda"):
        raise GradingError(f"{problem.slug}: timing a KernelBench problem on CUDA (its speed-up over Model and "
                           f"torch.compile(Model)) is not implemented yet; `kata run` grades its correctness")
    report = BenchReport(problem.slug, str(path), UNIT,
                         device="cpu (Triton interpreter)" if info.get("interpret") else "cpu")
    graded = Runner(pool).run(problem, source, path, cancel=cancel)
    failed = next((case for case in graded.cases if case.status != "passed"), None)
    report.correct = failed is None
    report.cancelled = graded.cancelled
    report.line = failed.line if failed is not None else graded.entry_line
    report.gate_message = (f"all {len(graded.cases)} trials pass" if failed is None else
                           f"{failed.name}: {failed.message}")
    report.notes.append("the speed-up over the eager Model and over torch.compile(Model) needs a CUDA GPU: no "
                        "figure without one, so fast_p cannot count this run")
    return report
