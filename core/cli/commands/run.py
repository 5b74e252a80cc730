"""`kata run`: grade one solution file. Exit 0 accepted, 1 graded and not accepted, 2 could not grade."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from infrakata.core.cli.command import STARTED, Command, Context
from infrakata.core.errors import EXIT_ACCEPTED, EXIT_REJECTED, CannotGrade, KataError
from rich.console import Console


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file")
    p.add_argument("--problem", help="slug, problem folder or codestar JSON (default: matched from the file)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--values", action="store_true",
                   help="record and print the first failing case's values (arguments, locals, the output) by line")


def handle(ctx: Context, args: argparse.Namespace) -> int:
    from infrakata.core.grading.report import renderable, report_to_dict

    report = ctx.grade(Path(args.file), args.problem, values=args.values)
    ctx.warn_if_unconfined()  # before the report: after it, it would follow --json's object on a combined stream
    if args.json:
        print(json.dumps(report_to_dict(report), ensure_ascii=False))
    else:
        Console(highlight=False).print(renderable(report, wall_ms=(time.perf_counter() - STARTED) * 1e3))
    return EXIT_ACCEPTED if report.accepted else EXIT_REJECTED


def json_error(args: argparse.Namespace, error: KataError) -> None:
    """With --json, why the file could not be graded is on stdout too: a consumer of the JSON reads it there."""
    if args.json:
        from infrakata.core.grading.report import could_not_grade_to_dict

        problem = error.problem if isinstance(error, CannotGrade) else None
        print(json.dumps(could_not_grade_to_dict(args.file, problem, str(error)), ensure_ascii=False))


COMMAND = Command("run", "grade a solution file", handle, arguments, reads_file="file", needs_pool=True,
                  on_error=json_error)
