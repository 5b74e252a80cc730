"""The learner's path through a kata: start, reset, hint, solution, and next."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from infrakata.core.catalog.problem import Problem
from infrakata.core.cli.command import Command, Context
from infrakata.core.errors import EXIT_REJECTED, CannotGrade, UsageError
from infrakata.core.grading.pipeline import read_solution
from infrakata.core.progress import learning
from infrakata.core.progress.learning import write_starter
from rich.console import Console
from rich.markup import escape


def start_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("slug")
    p.add_argument("dir", nargs="?", default=".")


def start(ctx: Context, args: argparse.Namespace) -> int:
    problem = ctx.problem_for(Path("."), "", args.slug)
    target = write_starter(problem, Path(args.dir))
    print(f"wrote {target}\nnext: edit it, then `kata run {target}` (or `kata watch {target.parent}`)")
    return 0


def reset_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("slug")
    p.add_argument("dir", nargs="?", default=".", help="the folder of the solution (or the file itself)")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask")


def reset(ctx: Context, args: argparse.Namespace) -> int:
    problem = ctx.problem_for(Path("."), "", args.slug)
    target = learning.starter_target(problem, Path(args.dir))
    if target.exists():
        _check_belongs(ctx, problem, target)
        if not args.yes:
            if not sys.stdin.isatty():
                raise UsageError(f"{target} exists: `kata reset {problem.slug} {target} --yes` rewrites the "
                                 f"starter over it (keeping a .bak copy)")
            answer = input(f"rewrite the starter over {target}? (your file is kept as a .bak) [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                print("nothing changed")
                return EXIT_REJECTED
    target, backup = learning.reset(problem, target)
    kept = f" (your version is in {backup})" if backup else ""
    print(f"wrote the starter to {target}{kept}\nnext: `kata run {target}`")
    return 0


def _check_belongs(ctx: Context, problem: Problem, target: Path) -> None:
    """`kata reset` rewrites only a file of that kata (as `kata run` would match it), never another one."""
    source = read_solution(target)
    try:
        owner: Problem | None = ctx.problem_for(target, source, None)
    except CannotGrade:  # no problem matches it
        owner = None
    if owner is None:
        raise UsageError(f"{target} does not belong to {problem.slug} (no '# kata: {problem.slug}' line, and its "
                         f"name and functions match no kata); nothing changed. Give the file of that kata, or "
                         f"a folder")
    if owner.slug != problem.slug:
        raise UsageError(f"{target} belongs to {owner.slug}, not {problem.slug}; nothing changed. "
                         f"`kata reset {owner.slug} {target}` starts it over")


def hint_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("slug")
    p.add_argument("n", nargs="?", type=int)


def show_hints(ctx: Context, args: argparse.Namespace) -> int:
    problem = ctx.problem_for(Path("."), "", args.slug)
    shown = learning.hints(problem, ctx.workspace, args.n)
    console = Console(highlight=False)
    for hint in shown:
        console.print(f"[bold]hint {hint.tier}/{hint.total}[/]  {escape(hint.text)}")
        if hint.text_zh and hint.text_zh != hint.text:
            console.print(f"[bold]提示 {hint.tier}/{hint.total}[/]  {escape(hint.text_zh)}")
    last = shown[-1]
    if last.tier < last.total:
        console.print(f"[dim]more: `kata hint {problem.slug}` shows hint {last.tier + 1}[/]")
    return 0


def solution_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("slug")


def show_solution(ctx: Context, args: argparse.Namespace) -> int:
    problem = ctx.problem_for(Path("."), "", args.slug)
    found = learning.solution(problem, ctx.workspace)
    if not found.unlocked:
        Console(highlight=False).print(escape(found.locked_message()))
        return EXIT_REJECTED
    from rich.markdown import Markdown
    from rich.syntax import Syntax

    console = Console()
    for text, code in found.sections():
        console.print(Markdown(text))
        console.print()
        # Code as code: never wrapped (a line split mid-expression pastes as broken Python), highlighted on a
        # terminal, plain elsewhere.
        if console.is_terminal:
            console.print(Syntax(code, "python", theme="ansi_dark", background_color="default").highlight(code),
                          soft_wrap=True)
        else:
            print(code, flush=True)
        console.print()
    return 0


def next_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", nargs="?", default=".")


def next_problem(ctx: Context, args: argparse.Namespace) -> int:
    problem = learning.next_problem(ctx.catalog.problems.values(), ctx.workspace)
    console = Console(highlight=False)
    if problem is None:
        console.print("every kata is solved here; `kata list` shows them")
        return 0
    console.print(f"next: [bold]{escape(problem.slug)}[/]  {escape(problem.title)}  "
                  f"({escape(problem.category)}, {escape(problem.difficulty or 'unrated')})")
    folder = Path(args.dir).parent if Path(args.dir).is_file() else Path(args.dir)  # `kata start` takes a folder
    console.print(f"run: kata start {problem.slug}" + (f" {folder}" if folder != Path(".") else ""))
    return 0


START = Command("start", "write a problem's starter file", start, start_arguments)
RESET = Command("reset", "rewrite a problem's starter over your file (kept as .bak)", reset, reset_arguments)
HINT = Command("hint", "the next hint of a problem (or hints 1..N)", show_hints, hint_arguments)
SOLUTION = Command("solution", "the editorial and the reference, once the kata is accepted", show_solution,
                   solution_arguments)
NEXT = Command("next", "the first problem not yet solved, and how to start it", next_problem, next_arguments)
