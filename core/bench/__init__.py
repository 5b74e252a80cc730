"""The kernel throughput benchmark: the grader's side and the timing code run in the workers."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from infrakata.core.bench.benchmark import BenchReport
    from infrakata.core.catalog.problem import Problem
    from infrakata.core.sandbox.pool import CancelToken, WorkerPool


def run(problem: Problem, source: str, path: Path | str, pool: WorkerPool, *, workspace: Path | None = None,
        cancel: CancelToken | None = None) -> BenchReport:
    """`kata bench` for a problem of any kind that has one (`Problem.benchmarked`): a kata's [benchmark], or a
    KernelBench problem's speed-up over its Model. Raises GradingError when it cannot be benchmarked."""
    from infrakata.core.bench.benchmark import run_benchmark
    from infrakata.core.bench.kernelbench import run_kernelbench_bench

    if problem.kind == "kernelbench":
        return run_kernelbench_bench(problem, source, path, pool, cancel=cancel, workspace=workspace)
    return run_benchmark(problem, source, path, pool, cancel=cancel, workspace=workspace)
