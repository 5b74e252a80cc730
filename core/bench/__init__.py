"""The kernel throughput benchmark: the grader's side and the timing code run in the workers."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from infrakata.core.bench.benchmark import BenchReport
    from infrakata.core.catalog.problem import Problem
    from infrakata.core.sandbox.pool import CancelToken, WorkerPool


def measure(problem: Problem, source: str, path: Path | str, pool: WorkerPool, *, workspace: Path | None = None,
            cancel: CancelToken | None = None) -> BenchReport:
    """`kata bench` for a problem of any kind that has one, timed as its kind says (core/catalog/kinds/ benchmark):
    a kata's [benchmark] table against its reference, a KernelBench problem's speed-up over its Model, or a LeetGPU
    challenge's performance test against its reference_impl. Raises GradingError when it cannot be benchmarked."""
    from infrakata.core.bench.benchmark import run_benchmark
    from infrakata.core.bench.kernelbench import run_kernelbench_bench
    from infrakata.core.bench.leetgpu import run_leetgpu_bench
    from infrakata.core.catalog.kinds import kind_of, no_benchmark
    from infrakata.core.errors import GradingError

    timing = kind_of(problem).benchmark(problem)
    if timing is None:
        raise GradingError(no_benchmark(problem))
    timed_by = {"table": run_benchmark, "model": run_kernelbench_bench, "challenge": run_leetgpu_bench}[timing]
    return timed_by(problem, source, path, pool, cancel=cancel, workspace=workspace)
