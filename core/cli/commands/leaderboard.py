"""`kata leaderboard`: the submissions of a `kata grade` results file, ranked per problem."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from infrakata.core.cli.command import Command, Context
from infrakata.core.errors import UsageError
from rich.console import Console
from rich.markup import escape


def _at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number (at least 1)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: at least 1")
    return value


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", metavar="RESULTS.jsonl")
    p.add_argument("--problem", metavar="SLUG")
    p.add_argument("--top", type=_at_least_one, metavar="N", help="the first N of each problem")
    p.add_argument("--key", metavar="FILE", help="the key of the grader that wrote the results (default: this "
                   "machine's, $XDG_DATA_HOME/infrakata/results.key); lines it did not sign are left out")
    p.add_argument("--json", action="store_true")


def handle(ctx: Context, args: argparse.Namespace) -> int:
    from infrakata.core.batch import results_file as batch
    from infrakata.core.cli.grade import fast_p_lines, leaderboard_table

    path = Path(args.results)
    try:
        rows = list(batch.read_results(path))
        empty = not rows and not path.read_text(encoding="utf-8").strip()
        key = Path(args.key).read_bytes() if args.key else batch.results_key()
    except FileNotFoundError as error:
        missing = Path(error.filename or path)
        raise UsageError(f"{missing}: no such file" + (f"; `kata grade ... --out {path}` writes one"
                                                         if missing == path else "")) from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: cannot read ({error})") from None
    if empty:
        raise UsageError(f"{path} is empty; `kata grade ... --out {path}` writes the results to rank")
    if not rows:
        raise UsageError(f"{path}: no result lines (a results file has one JSON object per line, as "
                         f"`kata grade --out` writes)")
    rows, unsigned = batch.verified(rows, key)
    if unsigned:
        ctx.err.print(f"[yellow]warning:[/] {unsigned} line(s) left out: not signed by "
                      f"{escape(args.key) if args.key else 'this grader'} (a line `kata grade` did not write, or "
                      f"one from another grader: pass its key with --key)")
    ranked = batch.leaderboard(rows)
    if not ranked:
        raise UsageError(f"{path}: none of its lines is a graded submission signed by this grader "
                         f"(could_not_grade lines are not ranked)")
    if args.problem:
        if args.problem not in ranked:
            raise UsageError(f"no results for {args.problem} in {path}; problems there: {', '.join(ranked)}")
        ranked = {args.problem: ranked[args.problem]}
    if args.json:
        print(json.dumps(ranked, ensure_ascii=False, indent=2))
    else:
        Console(highlight=False).print(leaderboard_table(ranked, args.top))
        for line in fast_p_lines([row for row in rows if not args.problem or row.get("problem") == args.problem],
                                 ctx.catalog):
            Console(highlight=False).print(line)
    return 0


COMMAND = Command("leaderboard", "rank the submissions of a `kata grade` results file", handle, arguments)
