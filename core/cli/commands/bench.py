"""`kata bench`: benchmark a kernel solution (core/bench), printed by core/cli/bench.py."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from infrakata.core.catalog.kinds import no_benchmark
from infrakata.core.cli.command import Command, Context
from infrakata.core.errors import EXIT_ACCEPTED, EXIT_REJECTED, CannotGrade
from infrakata.core.grading.pipeline import read_solution
from rich.markup import escape


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file")
    p.add_argument("--problem")
    p.add_argument("--json", action="store_true")


def handle(ctx: Context, args: argparse.Namespace) -> int:
    from infrakata.core import bench
    from infrakata.core.bench.benchmark import bench_to_dict
    from infrakata.core.cli.bench import format_bench
    from infrakata.core.sandbox.gpu import INTERPRET_CLEARED_NOTE

    path = Path(args.file)
    source = read_solution(path)
    problem = ctx.problem_for(path, source, args.problem)
    if (why := no_benchmark(problem)) is not None:
        raise CannotGrade(why)
    pool = ctx.pool()
    if pool.wait_ready().get("interpret_cleared"):
        ctx.err.print(f"[yellow]note:[/] {escape(INTERPRET_CLEARED_NOTE)}")
    result = bench.measure(problem, source, path, pool, workspace=ctx.workspace)
    print(json.dumps(bench_to_dict(result), ensure_ascii=False) if args.json else format_bench(result))
    return EXIT_ACCEPTED if result.accepted else EXIT_REJECTED


COMMAND = Command("bench", "benchmark a kernel solution (throughput on CUDA)", handle, arguments, reads_file="file",
                  needs_pool=True, one_shot=True)
