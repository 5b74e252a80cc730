"""`kata list`: the problems in course order, with the learner's progress, filtered by area, difficulty, tag."""

from __future__ import annotations

import argparse
import json
from typing import Any

from infrakata.core.catalog.kinds import benchmarked, summary
from infrakata.core.catalog.problem import Problem
from infrakata.core.cli.command import Command, Context
from infrakata.core.errors import UsageError
from infrakata.core.progress import learning, store
from rich.console import Console
from rich.markup import escape


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true")
    p.add_argument("--area", "--category", dest="area", help="only this area (the problems' category)")
    p.add_argument("--difficulty", help="only Easy, Medium or Hard")
    p.add_argument("--tag", help="only problems with this tag")
    done = p.add_mutually_exclusive_group()
    done.add_argument("--todo", action="store_true", help="only problems not yet accepted here")
    done.add_argument("--solved", action="store_true", help="only problems accepted here")


def _check_filters(ctx: Context, args: argparse.Namespace) -> None:
    """A filter value that no problem has is a typo: say so, with the values there are."""
    problems = ctx.catalog.problems.values()
    areas = sorted({p.category for p in problems if p.category}, key=learning.area_key)
    levels = sorted({p.difficulty for p in problems if p.difficulty}, key=learning.difficulty_key)
    for flag, given, values in (("--area", args.area, areas), ("--difficulty", args.difficulty, levels)):
        if given and given.lower() not in {v.lower() for v in values}:
            raise UsageError(f"no {flag[2:]} '{given}'; {flag} takes one of: {', '.join(values)}")
    tags = sorted({t for p in problems for t in p.tags}, key=str.lower)
    if args.tag and args.tag.lower() not in {t.lower() for t in tags}:
        raise UsageError(f"no problem is tagged '{args.tag}'; tags: {', '.join(tags)}")


def _in_scope(args: argparse.Namespace, p: Problem) -> bool:
    """What --area, --difficulty and --tag keep (the per-area counts are over these)."""
    return ((not args.area or p.category.lower() == args.area.lower())
            and (not args.difficulty or p.difficulty.lower() == args.difficulty.lower())
            and (not args.tag or any(args.tag.lower() == t.lower() for t in p.tags)))


def handle(ctx: Context, args: argparse.Namespace) -> int:
    _check_filters(ctx, args)
    progress = {row["problem"]: row for row in store.summary(ctx.workspace)}

    def solved(p: Problem) -> bool:
        return bool(progress.get(p.slug, {}).get("accepted"))

    in_scope = [p for p in learning.course_order(ctx.catalog.problems.values()) if _in_scope(args, p)]
    problems = [p for p in in_scope if not (args.todo and solved(p)) and not (args.solved and not solved(p))]
    if args.json:
        print(json.dumps([{**summary(p), "progress": progress.get(p.slug)} for p in problems],
                         ensure_ascii=False, indent=2))
    else:
        console = Console(highlight=False)
        console.print(_list_table(problems, progress, console.width))
        if not problems:
            console.print("no problem matches these filters")
        areas: dict[str, list[int]] = {}
        for p in in_scope:  # --todo and --solved choose the rows, not what an area counts
            counts = areas.setdefault(p.category or "(no area)", [0, 0, 0])
            counts[0] += solved(p)
            counts[1] += p.slug in progress
            counts[2] += 1
        for area, (done, attempted, total) in areas.items():
            console.print(f"{escape(area)}: {done}/{total} solved, {attempted} attempted")
        where = store.store_path(ctx.workspace)
        console.print(f"[dim]progress from {escape(str(where))}[/]")
    ctx.report_catalog_errors()
    return 0


TITLE_MIN = 20  # columns: a title folded narrower than this reads worse than none


def _list_table(problems: list[Problem], progress: dict[str, dict[str, Any]], width: int) -> Any:
    """Slugs are what every command takes: they are never cut. The title folds into the columns left,
    and is left out when fewer than TITLE_MIN are (`kata show SLUG` has it)."""
    from rich.table import Table
    from rich.text import Text

    def status(slug: str) -> Text:
        mine = progress.get(slug)
        if mine is None:
            return Text("")
        if mine["accepted"]:
            return Text("solved", style="green")
        return Text(f"best {mine['best_passed']}/{mine['total']}")

    columns = {"slug": [Text(p.slug) for p in problems], "title": [Text(p.title) for p in problems],
               "area": [Text(p.category) for p in problems], "difficulty": [Text(p.difficulty) for p in problems],
               "bench": [Text("CUDA" if benchmarked(p) else "") for p in problems],
               "you": [status(p.slug) for p in problems]}
    widths = {name: max([len(name), *(cell.cell_len for cell in cells)]) for name, cells in columns.items()}
    others = sum(widths.values()) - widths["title"] + 2 * (len(columns) - 1)  # two spaces between columns
    if width - others < TITLE_MIN:
        del columns["title"]
    table = Table(box=None, header_style="bold", pad_edge=False)
    for name in columns:
        if name == "title":
            table.add_column(name, overflow="fold", min_width=TITLE_MIN)
        else:
            table.add_column(name, no_wrap=True, min_width=widths[name] if name == "slug" else None)
    for row in zip(*columns.values(), strict=True):
        table.add_row(*row)
    return table


COMMAND = Command("list", "list the problems, with your progress", handle, arguments)
