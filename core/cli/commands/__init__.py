"""The `kata` commands, one module each (the learner's path shares learner.py), and the parser and `main` built
from their declarations (core/cli/command.py): main does what a command declares, never asks its name.

Text from users and problems is printed escaped: rich would take `[files]` for markup.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from infrakata.core.cli.command import Command, Context
from infrakata.core.cli.commands import (
    bench,
    check_problems,
    doctor,
    grade,
    leaderboard,
    learner,
    listing,
    run,
    serve,
    show,
    watch,
)
from infrakata.core.errors import KataError
from infrakata.core.grading.pipeline import read_solution
from rich.console import Console
from rich.markup import escape

# In the order `kata --help` lists them.
COMMANDS: tuple[Command, ...] = (
    listing.COMMAND, show.COMMAND, learner.START, learner.RESET, learner.HINT, learner.SOLUTION, learner.NEXT,
    check_problems.COMMAND, doctor.COMMAND, run.COMMAND, watch.COMMAND, bench.COMMAND, grade.COMMAND,
    leaderboard.COMMAND, serve.COMMAND)


class _Version(argparse.Action):
    """`kata --version`: the installed distribution's version, looked up only when asked (it costs 50 ms)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            installed = version("infrakata")
        except PackageNotFoundError:
            installed = "(not installed: scripts/setup, or pip install . in a checkout)"
        print(f"kata (infrakata) {installed}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kata", description="Grade AI-infrastructure katas.")
    parser.add_argument("--version", action=_Version)
    parser.add_argument("--problems", action="append", default=[], metavar="PATH",
                        help="extra problem folder or codestar JSON (repeatable)")
    parser.add_argument("--isolation", choices=("best", "strict"),
                        help="the sandbox: the best this machine has (default), or refuse to grade without every "
                             "layer (`kata doctor` lists them); overrides kata.toml's isolation")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        p = sub.add_parser(command.name, help=command.help, add_help=not command.passes_through)
        command.arguments(p)
        p.set_defaults(declared=command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # This process runs references on small cases, from several threads at once in a batch: torch's
    # intra-op pool (a thread per core) only spins beside them, 5 to 20 times the CPU of gradient-accumulation's
    # fresh case under load. Read when torch is first imported; a user's own setting stands.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    command: Command = args.declared
    if command.passes_through:
        args.passed = extra
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")

    try:
        if command.reads_file:
            # A missing file is said at once, before any worker starts.
            read_solution(Path(getattr(args, command.reads_file)))
        if command.check:
            command.check(args)
        if command.needs_pool:
            from infrakata.core.sandbox.pool import WorkerPool

            pool = WorkerPool.shared()
            pool.idle_imports = not command.one_shot
            pool.start()  # warm the zygote while this process loads the problem
        start = Path(getattr(args, "file", None) or getattr(args, "dir", None) or ".")
        ctx = Context(start if start.exists() else Path("."), args.problems, args.isolation)
        if command.needs_pool or command.holds_isolation:
            ctx.pool()  # held to the isolation asked for before anything is graded
        return command.handler(ctx, args)
    except KataError as error:
        if command.on_error:
            command.on_error(args, error)
        Console(stderr=True, highlight=False, soft_wrap=True).print(f"[red]kata:[/] {escape(str(error))}")
        return error.exit_code

