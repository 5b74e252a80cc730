"""`kata grade`: a batch of submissions graded in parallel (core/batch), its tables in core/cli/grade.py."""

from __future__ import annotations

import argparse

from infrakata.core.cli.command import Command, Context
from infrakata.core.errors import UsageError


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="solution files or folders (every *.py below)")
    p.add_argument("--manifest", metavar="FILE", help='JSONL: {"id", "file" | "source", "problem"} per line')
    p.add_argument("--out", metavar="FILE", help="results, one JSON line per submission (default: stdout)")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML")
    p.add_argument("--jobs", type=int, metavar="N", help="parallel gradings (default: three per core)")
    p.add_argument("--resume", action="store_true", help="skip the ids already in --out")
    p.add_argument("--bench", action="store_true", help="benchmark accepted kernel solutions (one per GPU at a time)")
    p.add_argument("--hidden", action="store_true", help="keep every expected value (and the differences from it) "
                   "out of the results, JUnit and summary: for leaderboards, where answers must not leak")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="grade on Ray actors (a local cluster, or the one at ADDRESS); needs the extra `ray`")
    p.add_argument("--retries", type=int, default=2, metavar="N",
                   help="Ray: times a submission is retried after its actor died (default 2)")


def handle(ctx: Context, args: argparse.Namespace) -> int:
    from infrakata.core.batch.grader import GradeOptions
    from infrakata.core.cli.grade import grade_batch

    if args.jobs is not None and args.jobs < 1 or args.retries < 0:
        raise UsageError("--jobs is at least 1 and --retries at least 0")
    options = GradeOptions(
        paths=args.paths, manifest=args.manifest, out=args.out, junit=args.junit, jobs=args.jobs, resume=args.resume,
        bench=args.bench, ray=args.ray is not None, ray_address=args.ray or None, problem_paths=args.problems,
        max_retries=args.retries, hidden=args.hidden, isolation=ctx.isolation)
    try:
        return grade_batch(options, ctx.catalog, ctx.settings, ctx.workspace)
    except KeyboardInterrupt:
        return 130


# Its pool is not started here: the batch warms it for its first submission (BatchGrader.warm).
COMMAND = Command("grade", "grade many submissions (files, folders, a JSONL manifest) in parallel", handle, arguments,
                  holds_isolation=True)
