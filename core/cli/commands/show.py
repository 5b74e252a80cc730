"""`kata show`: a problem's statement, its limits, and what this machine makes of it."""

from __future__ import annotations

import argparse
from pathlib import Path

from infrakata.core.cli.command import Command, Context
from rich.console import Console
from rich.markup import escape


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("slug")


def handle(ctx: Context, args: argparse.Namespace) -> int:
    problem = ctx.problem_for(Path("."), "", args.slug)
    from infrakata.core.catalog.statement import rendered
    from rich.markdown import Markdown

    console = Console()
    console.print(f"[bold]{escape(problem.title)}[/]  ({escape(problem.slug)}, "
                  f"{escape(problem.difficulty or 'unrated')})")
    console.print(f"entry point: {problem.entry_point}   time limit: {problem.time_limit:g} s   "
                  f"memory: {problem.memory_limit_mb} MiB   atol {problem.atol:g}  rtol {problem.rtol:g}")
    console.print(Markdown(rendered(problem.statement) or "(no statement)"))
    from infrakata.core.grading.kinds import driver_of
    from infrakata.core.grading.runner import Runner

    with Runner(ctx.pool()) as runner:
        note = driver_of(problem).machine_note(runner, problem)
    if note:
        console.print(f"[bold]On this machine:[/] {escape(note)}")
    return 0


COMMAND = Command("show", "show a problem's statement", handle, arguments)
