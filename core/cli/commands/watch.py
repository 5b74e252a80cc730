"""`kata watch`: grade solutions whenever they are saved (core/watch.py)."""

from __future__ import annotations

import argparse
import glob
import threading
import time
from pathlib import Path

from infrakata.core.cli.command import Command, Context
from infrakata.core.errors import CannotGrade, UsageError
from infrakata.core.grading.pipeline import read_solution
from rich.console import Console
from rich.markup import escape


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", nargs="?", default=".")
    p.add_argument("--problem")


def watched(target: Path) -> tuple[Path, Path | None]:
    """`kata watch DIR` -> (DIR, None); `kata watch FILE` -> (its folder, the file): only it is graded."""
    if not target.exists():
        raise UsageError(f"{target}: no such folder; `kata watch DIR` watches a folder of solutions "
                         f"(or one file: `kata watch FILE`)")
    target = target.resolve()
    if target.is_file():
        return target.parent, target
    return target, None


def handle(ctx: Context, args: argparse.Namespace) -> int:
    from infrakata.core.grading.report import renderable
    from infrakata.core.watch import IGNORED_PARTS, watch_files

    root, only = watched(Path(args.dir))
    console = Console(highlight=False)
    lock = threading.Lock()
    last: dict[Path, str] = {}

    def on_change(path: Path) -> None:
        with lock:  # one grading at a time keeps the terminal readable
            if only is not None and path.resolve() != only:
                return
            try:
                source = read_solution(path)
            except CannotGrade as error:
                if path.exists():  # unreadable (not UTF-8, say), not gone: the learner is told how to fix it
                    console.print(f"[red]cannot grade:[/] {escape(str(error))}")
                return
            if last.get(path) == source:
                return
            last[path] = source
            started = time.perf_counter()
            try:
                report = ctx.grade(path, args.problem)
            except CannotGrade as error:
                if "no problem matches" not in str(error):
                    console.print(f"[red]cannot grade:[/] {escape(str(error))}")
                return
            console.rule(escape(path.name))
            console.print(renderable(report, wall_ms=(time.perf_counter() - started) * 1e3))

    stop = watch_files(root, [glob.escape(only.name)] if only else ["*.py"], on_change)
    what = f"{only.name} in {root}" if only else f"{root} for saved solutions"
    console.print(f"watching {escape(what)} (Ctrl-C to stop)")
    try:
        # The solutions already there are graded first, as a save would grade them (those no problem claims
        # are passed over in silence, as on a save).
        for path in [only] if only else sorted(p for p in root.rglob("*.py") if not IGNORED_PARTS & set(p.parts)):
            on_change(path)
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        stop()
    return 0


COMMAND = Command("watch", "grade solutions whenever they are saved", handle, arguments,
                  check=lambda args: watched(Path(args.dir)), needs_pool=True)
