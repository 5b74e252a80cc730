"""The `kata` commands: list, show, start, run, watch, bench, serve.

Exit codes of `kata run`: 0 accepted, 1 graded and not accepted, 2 could not grade.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path
from typing import Any, Sequence

from rich.console import Console

from . import history
from .catalog import Catalog, ProblemError
from .config import Settings, find_workspace, load_settings
from .matching import NoMatch, match_problem
from .problem import Problem
from .results import GradingError

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_CANNOT_GRADE = 0, 1, 2


class CannotGrade(Exception):
    """Exit 2 with this message."""


class Context:
    """Workspace, settings and catalogue, as every command sees them."""

    def __init__(self, start: Path, extra_problems: Sequence[str]):
        self.err = Console(stderr=True, highlight=False, soft_wrap=True)
        self.workspace = find_workspace(start)
        self.settings, warnings = load_settings(self.workspace)
        for warning in warnings:
            self.err.print(f"[yellow]warning:[/] {warning}")
        self.catalog = Catalog.load([*self.settings.problem_paths, *extra_problems])

    def report_catalog_errors(self) -> None:
        for error in self.catalog.errors:
            self.err.print(f"[yellow]problem skipped:[/] {error}")

    def problem_for(self, path: Path, source: str, explicit: str | None) -> Problem:
        try:
            if explicit:
                return self.catalog.get(explicit)
            return match_problem(path, source, self.catalog, self.settings, self.workspace)
        except (LookupError, ProblemError) as error:
            raise CannotGrade(str(error)) from None

    def record(self, report: Any) -> None:
        if self.workspace is not None:
            history.record(self.workspace, report)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CannotGrade(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CannotGrade(f"{path}: cannot read ({error})") from None


def cmd_list(ctx: Context, args: argparse.Namespace) -> int:
    problems = list(ctx.catalog.problems.values())
    progress = {row["problem"]: row for row in history.summary(ctx.workspace)} if ctx.workspace else {}
    if args.json:
        print(json.dumps([{**problem_summary(p), "progress": progress.get(p.slug)} for p in problems],
                         ensure_ascii=False, indent=2))
    else:
        from rich.table import Table

        table = Table(box=None, header_style="bold")
        for column in ("slug", "title", "difficulty", "bench", "you"):
            table.add_column(column)
        for p in problems:
            mine = progress.get(p.slug)
            status = "" if mine is None else ("[green]solved[/]" if mine["accepted"] else
                                              f"best {mine['best_passed']}/{mine['total']}")
            table.add_row(p.slug, p.title, p.difficulty, "CUDA" if p.benchmark else "", status)
        Console().print(table)
    ctx.report_catalog_errors()
    return 0


def problem_summary(problem: Problem) -> dict[str, Any]:
    return {"slug": problem.slug, "title": problem.title, "difficulty": problem.difficulty,
            "category": problem.category, "tags": list(problem.tags), "entry_point": problem.entry_point,
            "hasBenchmark": problem.benchmark is not None, "kind": problem.kind, "path": str(problem.source_path)}


def cmd_show(ctx: Context, args: argparse.Namespace) -> int:
    problem = ctx.problem_for(Path("."), "", args.slug)
    from rich.markdown import Markdown

    console = Console()
    console.print(f"[bold]{problem.title}[/]  ({problem.slug}, {problem.difficulty or 'unrated'})")
    console.print(f"entry point: {problem.entry_point}   time limit: {problem.time_limit:g} s   "
                  f"memory: {problem.memory_limit_mb} MiB   atol {problem.atol:g}  rtol {problem.rtol:g}")
    console.print(Markdown(problem.statement or "(no statement)"))
    return 0


def starter_file_name(problem: Problem) -> str:
    return problem.slug.replace("-", "_") + ".py"


def write_starter(problem: Problem, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / starter_file_name(problem)
    if target.exists():
        raise CannotGrade(f"{target} already exists; keep working on it, or pass another folder to `kata start`")
    target.write_text(f"# kata: {problem.slug}\n{problem.starter}", encoding="utf-8")
    return target


def cmd_start(ctx: Context, args: argparse.Namespace) -> int:
    problem = ctx.problem_for(Path("."), "", args.slug)
    target = write_starter(problem, Path(args.dir))
    print(f"wrote {target}\nnext: edit it, then `kata run {target}` (or `kata watch {args.dir}`)")
    return 0


def grade(ctx: Context, path: Path, explicit: str | None, runner: Any = None) -> Any:
    from .runner import Runner

    source = _read(path)
    problem = ctx.problem_for(path, source, explicit)
    try:
        report = (runner or Runner()).run(problem, source, path)
    except (GradingError, ProblemError) as error:
        raise CannotGrade(f"{problem.slug}: cannot grade: {error}") from None
    ctx.record(report)
    return report


def cmd_run(ctx: Context, args: argparse.Namespace) -> int:
    from .report import renderable, report_to_dict

    report = grade(ctx, Path(args.file), args.problem)
    if args.json:
        print(json.dumps(report_to_dict(report), ensure_ascii=False))
    else:
        Console(highlight=False).print(renderable(report))
    return EXIT_ACCEPTED if report.accepted else EXIT_REJECTED


def cmd_watch(ctx: Context, args: argparse.Namespace) -> int:
    from .report import renderable
    from .runner import Runner
    from .watch import watch_files

    root = Path(args.dir).resolve()
    console = Console(highlight=False)
    runner = Runner()
    lock = threading.Lock()
    last: dict[Path, str] = {}

    def on_change(path: Path) -> None:
        with lock:  # one grading at a time keeps the terminal readable
            try:
                source = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return
            if last.get(path) == source:
                return
            last[path] = source
            try:
                report = grade(ctx, path, args.problem, runner)
            except CannotGrade as error:
                if "no problem matches" not in str(error):
                    console.print(f"[red]cannot grade:[/] {error}")
                return
            console.rule(f"{path.name}")
            console.print(renderable(report))

    stop = watch_files(root, ["*.py"], on_change)
    console.print(f"watching {root} for saved solutions (Ctrl-C to stop)")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        stop()
    return 0


def cmd_bench(ctx: Context, args: argparse.Namespace) -> int:
    from .bench import bench_to_dict, format_bench, run_benchmark
    from .sandbox.pool import WorkerPool

    path = Path(args.file)
    source = _read(path)
    problem = ctx.problem_for(path, source, args.problem)
    if problem.benchmark is None:
        raise CannotGrade(f"{problem.slug} has no benchmark ([benchmark] in problem.toml)")
    result = run_benchmark(problem, source, path, WorkerPool.shared(), workspace=ctx.workspace)
    print(json.dumps(bench_to_dict(result), ensure_ascii=False) if args.json else format_bench(result))
    return EXIT_ACCEPTED if bench_to_dict(result)["correct"] else EXIT_REJECTED


def cmd_grade(ctx: Context, args: argparse.Namespace) -> int:
    from . import batch

    if args.jobs is not None and args.jobs < 1 or args.retries < 0:
        raise CannotGrade("--jobs is at least 1 and --retries at least 0")
    options = batch.GradeOptions(
        paths=args.paths, manifest=args.manifest, out=args.out, junit=args.junit, jobs=args.jobs, resume=args.resume,
        bench=args.bench, ray=args.ray is not None, ray_address=args.ray or None, problem_paths=args.problems,
        max_retries=args.retries)
    if not options.ray:
        from .sandbox.pool import WorkerPool

        WorkerPool.shared().start()  # warm the zygote while the submissions are collected
    try:
        return batch.grade_batch(options, ctx.catalog, ctx.settings, ctx.workspace)
    except batch.CannotGrade as error:
        raise CannotGrade(str(error)) from None
    except KeyboardInterrupt:
        return 130


def cmd_leaderboard(ctx: Context, args: argparse.Namespace) -> int:
    from . import batch

    try:
        ranked = batch.leaderboard(batch.read_results(Path(args.results)))
    except (OSError, UnicodeDecodeError) as error:
        raise CannotGrade(f"{args.results}: cannot read ({error})") from None
    if args.problem:
        ranked = {p: rows for p, rows in ranked.items() if p == args.problem}
    if args.json:
        print(json.dumps(ranked, ensure_ascii=False, indent=2))
    else:
        Console(highlight=False).print(batch.leaderboard_table(ranked, args.top))
    return 0


def cmd_serve(ctx: Context, args: argparse.Namespace) -> int:
    # core never imports the server: the server registers itself as the `serve` command.
    from importlib.metadata import entry_points

    found = list(entry_points(group="infrakata.commands", name="serve"))
    if not found:
        raise CannotGrade("the language server is not installed with this infrakata (reinstall: scripts/setup)")
    return found[0].load()(args.serve_args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kata", description="Grade AI-infrastructure katas.")
    parser.add_argument("--problems", action="append", default=[], metavar="PATH",
                        help="extra problem folder or codestar JSON (repeatable)")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="list the problems")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_list)
    p = sub.add_parser("show", help="show a problem's statement")
    p.add_argument("slug")
    p.set_defaults(handler=cmd_show)
    p = sub.add_parser("start", help="write a problem's starter file")
    p.add_argument("slug")
    p.add_argument("dir", nargs="?", default=".")
    p.set_defaults(handler=cmd_start)
    p = sub.add_parser("run", help="grade a solution file")
    p.add_argument("file")
    p.add_argument("--problem", help="slug, problem folder or codestar JSON (default: matched from the file)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_run)
    p = sub.add_parser("watch", help="grade solutions whenever they are saved")
    p.add_argument("dir", nargs="?", default=".")
    p.add_argument("--problem")
    p.set_defaults(handler=cmd_watch)
    p = sub.add_parser("bench", help="benchmark a kernel solution (throughput on CUDA)")
    p.add_argument("file")
    p.add_argument("--problem")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_bench)
    p = sub.add_parser("grade", help="grade many submissions (files, folders, a JSONL manifest) in parallel")
    p.add_argument("paths", nargs="*", metavar="PATH", help="solution files or folders (every *.py below)")
    p.add_argument("--manifest", metavar="FILE", help='JSONL: {"id", "file" | "source", "problem"} per line')
    p.add_argument("--out", metavar="FILE", help="results, one JSON line per submission (default: stdout)")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML")
    p.add_argument("--jobs", type=int, metavar="N", help="parallel gradings (default: the cores)")
    p.add_argument("--resume", action="store_true", help="skip the ids already in --out")
    p.add_argument("--bench", action="store_true", help="benchmark accepted kernel solutions (one per GPU at a time)")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="grade on Ray actors (a local cluster, or the one at ADDRESS); needs infrakata[ray]")
    p.add_argument("--retries", type=int, default=2, metavar="N",
                   help="Ray: times a submission is retried after its actor died (default 2)")
    p.set_defaults(handler=cmd_grade)
    p = sub.add_parser("leaderboard", help="rank the submissions of a `kata grade` results file")
    p.add_argument("results", metavar="RESULTS.jsonl")
    p.add_argument("--problem", metavar="SLUG")
    p.add_argument("--top", type=int, metavar="N")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_leaderboard)
    # Its options (--tcp HOST:PORT, --log-level LEVEL) are the server's own: passed through.
    p = sub.add_parser("serve", help="run the language server on stdio (--tcp HOST:PORT for TCP)", add_help=False)
    p.set_defaults(handler=cmd_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "serve":
        args.serve_args = extra
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command in ("run", "bench", "watch"):
        from .sandbox.pool import WorkerPool

        WorkerPool.shared().start()  # warm the zygote while this process loads the problem
    start = Path(getattr(args, "file", None) or getattr(args, "dir", None) or ".")
    from .sandbox.pool import SandboxUnavailable

    try:
        ctx = Context(start if start.exists() else Path("."), args.problems)
        return args.handler(ctx, args)
    except (CannotGrade, GradingError, SandboxUnavailable) as error:
        Console(stderr=True, highlight=False, soft_wrap=True).print(f"[red]kata:[/] {error}")
        return EXIT_CANNOT_GRADE


if __name__ == "__main__":
    sys.exit(main())
