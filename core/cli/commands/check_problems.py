"""`kata check-problems`: the maintainers' check of problems (core/maintenance/checks.py), printed."""

from __future__ import annotations

import argparse

from infrakata.core.catalog.loading import Catalog
from infrakata.core.cli.command import Command, Context
from infrakata.core.errors import EXIT_REJECTED
from rich.console import Console
from rich.markup import escape


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="problem folders or codestar JSON files")
    p.add_argument("--mutants", action="store_true",
                   help="also grade every mutant of each reference: some case must reject each one")


def handle(ctx: Context, args: argparse.Namespace) -> int:
    from infrakata.core.grading.runner import Runner
    from infrakata.core.maintenance.checks import check_problem, load_failure

    # PATHs alone when given; else what `kata list` shows (the bundled catalogue, the workspace's, --problems).
    catalog = Catalog.load(args.paths, include_bundled=False) if args.paths else ctx.catalog
    console = Console(highlight=False, soft_wrap=True)
    runner = Runner()
    results = [load_failure(error) for error in catalog.errors]
    known = {**ctx.catalog.problems, **catalog.problems}  # what a builds_on may name
    for problem in catalog.problems.values():
        results.append(check_problem(problem, runner, mutants=args.mutants, catalog=known))
    for result in results:
        mutants = f"; {result.mutants}" if result.mutants else ""
        if result.ok:
            console.print(f"[green]ok[/]    {escape(result.name)}  ({len(result.passed)} checks{escape(mutants)})")
        else:
            console.print(f"[red]FAIL[/]  {escape(result.name)}{escape(mutants)}")
            for failure in result.failures:
                console.print(f"      - {escape(failure)}")
        for warning in result.warnings:
            console.print(f"      [yellow]warning[/]: {escape(warning)}")
    bad = sum(not r.ok for r in results)
    if any("mutant survives" in f for r in results for f in r.failures):
        console.print(escape("a surviving mutant needs a case that tells it apart from the reference, or (when no "
                             "input can) a [[mutants.equivalent]] entry in problem.toml with the reason "
                             "(problems/FORMAT.md)"))
    console.print(f"{len(results) - bad}/{len(results)} problems pass" + (f"; {bad} fail" if bad else ""))
    if not results:
        console.print("no problems found")
        return EXIT_REJECTED
    return EXIT_REJECTED if bad else 0


COMMAND = Command("check-problems", "check problems: reference accepted, starter and wrong/ rejected, statements, "
                  "deterministic cases (default: the bundled catalogue)", handle, arguments, needs_pool=True)
