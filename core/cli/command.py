"""What a `kata` command declares (Command) and what it is handed (Context); the clock its wall time starts on."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from infrakata.core.catalog.loading import MISSING_PROBLEM_PATH, Catalog
from infrakata.core.catalog.problem import Problem
from infrakata.core.config import find_workspace, load_settings
from infrakata.core.errors import KataError
from infrakata.core.grading.pipeline import Grading, read_solution
from infrakata.core.grading.results import RunReport
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from infrakata.core.sandbox.pool import WorkerPool

INTERPRETER_START_S = 10.0


def _process_started() -> float:
    """When this process began, on the perf_counter clock: the wall time a user waits starts there."""
    now = time.perf_counter()
    try:  # Linux: the process' start, in clock ticks since boot, counts the interpreter's own start-up
        with open("/proc/self/stat", encoding="ascii") as stat:
            ticks = int(stat.read().rpartition(")")[2].split()[19])
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
        # The start is the fork's, not the exec's: a shell that ran `setup && kata run` may exec kata in the
        # process it forked before the set-up. Python's start never takes this long: then it is not ours.
        return now - age if 0 <= age < INTERPRETER_START_S else now
    except (OSError, ValueError, IndexError, AttributeError):
        return now


STARTED = _process_started()


class Context:
    """Workspace, settings and catalogue, as every command sees them."""

    def __init__(self, start: Path, extra_problems: Sequence[str], isolation: str | None = None):
        self.err = Console(stderr=True, highlight=False, soft_wrap=True)
        self.workspace = find_workspace(start)
        self.settings, warnings = load_settings(self.workspace)
        for warning in warnings:
            self.err.print(f"[yellow]warning:[/] {escape(warning)}")
        self.isolation = isolation or self.settings.isolation
        self.catalog = Catalog.load([*self.settings.problem_paths, *extra_problems])
        self.grading = Grading(self.catalog, self.settings, self.workspace)
        for note in self.catalog.renaming_notes():
            self.err.print(f"[yellow]note:[/] {escape(note)}")
        # A problem path the user gave (kata.toml, --problems) that is not there is said by every command.
        for error in self.catalog.errors:
            if error.message == MISSING_PROBLEM_PATH:
                where = "the workspace's `problems`" if error.path in self.settings.problem_paths else "--problems"
                self.err.print(f"[yellow]warning:[/] {escape(str(error))} (given in {where}): fix the path")

    def pool(self) -> WorkerPool:
        """The shared worker pool, held to this command's isolation (--isolation, else kata.toml)."""
        from infrakata.core.sandbox.pool import WorkerPool

        pool = WorkerPool.shared()
        pool.isolation = self.isolation
        return pool

    def warn_if_unconfined(self) -> None:
        """The one line saying which layers of the sandbox this machine lacks (nothing when all hold)."""
        from infrakata.core.sandbox.doctor import warning_line

        line = warning_line(self.pool().layers_in_use())
        if line is not None:
            self.err.print(f"[yellow]warning:[/] {escape(line)}")

    def report_catalog_errors(self) -> None:
        for error in self.catalog.errors:
            if error.message == MISSING_PROBLEM_PATH:
                continue  # said as the command started
            self.err.print(f"[yellow]problem skipped:[/] {escape(str(error))}")

    def problem_for(self, path: Path, source: str, explicit: str | None) -> Problem:
        return self.grading.problem_for(path, source, explicit)

    def grade(self, path: Path, explicit: str | None, values: bool = False) -> RunReport:
        """`kata run` and `kata watch`: the file graded, and the warning of its grading said."""
        graded = self.grading.grade(path, read_solution(path), explicit, values=values)
        if graded.warning:
            self.err.print(f"[yellow]warning:[/] {escape(graded.warning)}")
        return graded.report


Handler = Callable[[Context, argparse.Namespace], int]


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    pass


@dataclass
class Command:
    """A `kata` command: its parser entry, its handler, and what main does before the handler runs.

    Every need is declared here, never tested by the command's name in main: a new command says what it
    needs and main does it."""

    name: str
    help: str
    handler: Handler
    arguments: Callable[[argparse.ArgumentParser], None] = _no_arguments
    # The argument naming a solution file: read before any worker starts, so a missing one is said at once.
    reads_file: str | None = None
    # Further checks of the arguments, before any worker starts (a watched folder that is not there).
    check: Callable[[argparse.Namespace], object] | None = None
    # Start the worker pool at once, warming the zygote while this process loads the catalogue.
    needs_pool: bool = False
    # It forks a few workers and exits: its zygote skips the idle imports (WorkerPool.idle_imports), which its
    # workers would wait for.
    one_shot: bool = False
    # Hold the shared pool to --isolation (else kata.toml's) before the handler grades anything; a command that
    # needs the pool is held too.
    holds_isolation: bool = False
    # Its options are another program's (`kata serve`: the server's): the arguments kata does not know, --help
    # included, are passed on in args.passed.
    passes_through: bool = False
    # Said before the error's line on stderr (`kata run --json`: the could-not-grade object on stdout).
    on_error: Callable[[argparse.Namespace, KataError], None] | None = None
