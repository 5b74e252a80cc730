"""The `kata` commands: list, show, start, run, watch, bench, serve; the learner's path (hint,
solution, next, reset); and the maintainers' check-problems.

Exit codes of `kata run`: 0 accepted, 1 graded and not accepted, 2 could not grade.
Text from users and problems is printed escaped: rich would take `[files]` for markup.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from infrakata.core.catalog.kinds import benchmarked, kind_of, summary
from infrakata.core.catalog.loading import MISSING_PROBLEM_PATH, Catalog
from infrakata.core.catalog.problem import Problem
from infrakata.core.config import find_workspace, load_settings
from infrakata.core.errors import EXIT_ACCEPTED, EXIT_REJECTED, KataError
from infrakata.core.grading.pipeline import CannotGrade, Grading, read_solution
from infrakata.core.grading.results import RunReport
from infrakata.core.progress import learning
from infrakata.core.progress import store as history
from infrakata.core.progress.learning import write_starter
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from infrakata.core.sandbox.pool import WorkerPool

# Commands that fork a few workers and exit: their zygote skips the idle imports (WorkerPool.idle_imports).
ONE_SHOT = ("bench",)


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


def _check_filters(ctx: Context, args: argparse.Namespace) -> None:
    """A filter value that no problem has is a typo: say so, with the values there are."""
    problems = ctx.catalog.problems.values()
    areas = sorted({p.category for p in problems if p.category}, key=learning.area_key)
    levels = sorted({p.difficulty for p in problems if p.difficulty}, key=learning.difficulty_key)
    for flag, given, values in (("--area", args.area, areas), ("--difficulty", args.difficulty, levels)):
        if given and given.lower() not in {v.lower() for v in values}:
            raise CannotGrade(f"no {flag[2:]} '{given}'; {flag} takes one of: {', '.join(values)}")
    tags = sorted({t for p in problems for t in p.tags}, key=str.lower)
    if args.tag and args.tag.lower() not in {t.lower() for t in tags}:
        raise CannotGrade(f"no problem is tagged '{args.tag}'; tags: {', '.join(tags)}")


def _in_scope(args: argparse.Namespace, p: Problem) -> bool:
    """What --area, --difficulty and --tag keep (the per-area counts are over these)."""
    return ((not args.area or p.category.lower() == args.area.lower())
            and (not args.difficulty or p.difficulty.lower() == args.difficulty.lower())
            and (not args.tag or any(args.tag.lower() == t.lower() for t in p.tags)))


def cmd_list(ctx: Context, args: argparse.Namespace) -> int:
    _check_filters(ctx, args)
    progress = {row["problem"]: row for row in history.summary(ctx.workspace)}

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
        where = history.store_path(ctx.workspace)
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


def cmd_show(ctx: Context, args: argparse.Namespace) -> int:
    problem = ctx.problem_for(Path("."), "", args.slug)
    from infrakata.core.catalog.statement import rendered
    from rich.markdown import Markdown

    console = Console()
    console.print(f"[bold]{escape(problem.title)}[/]  ({escape(problem.slug)}, "
                  f"{escape(problem.difficulty or 'unrated')})")
    console.print(f"entry point: {problem.entry_point}   time limit: {problem.time_limit:g} s   "
                  f"memory: {problem.memory_limit_mb} MiB   atol {problem.atol:g}  rtol {problem.rtol:g}")
    console.print(Markdown(rendered(problem.statement) or "(no statement)"))
    from infrakata.core.grading.kinds import cases_of
    from infrakata.core.grading.runner import Runner

    with Runner(ctx.pool()) as runner:
        note = cases_of(problem).machine_note(runner, problem)
    if note:
        console.print(f"[bold]On this machine:[/] {escape(note)}")
    return 0


def cmd_start(ctx: Context, args: argparse.Namespace) -> int:
    problem = ctx.problem_for(Path("."), "", args.slug)
    target = write_starter(problem, Path(args.dir))
    print(f"wrote {target}\nnext: edit it, then `kata run {target}` (or `kata watch {target.parent}`)")
    return 0


def cmd_reset(ctx: Context, args: argparse.Namespace) -> int:
    problem = ctx.problem_for(Path("."), "", args.slug)
    target = learning.starter_target(problem, Path(args.dir))
    if target.exists():
        _check_belongs(ctx, problem, target)
        if not args.yes:
            if not sys.stdin.isatty():
                raise CannotGrade(f"{target} exists: `kata reset {problem.slug} {target} --yes` rewrites the "
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
        raise CannotGrade(f"{target} does not belong to {problem.slug} (no '# kata: {problem.slug}' line, and its "
                          f"name and functions match no kata); nothing changed. Give the file of that kata, or "
                          f"a folder")
    if owner.slug != problem.slug:
        raise CannotGrade(f"{target} belongs to {owner.slug}, not {problem.slug}; nothing changed. "
                          f"`kata reset {owner.slug} {target}` starts it over")


def cmd_hint(ctx: Context, args: argparse.Namespace) -> int:
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


def cmd_solution(ctx: Context, args: argparse.Namespace) -> int:
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


def cmd_next(ctx: Context, args: argparse.Namespace) -> int:
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


def cmd_check_problems(ctx: Context, args: argparse.Namespace) -> int:
    from infrakata.core.grading.runner import Runner
    from infrakata.core.maintenance.checks import check_problem, load_failure

    # PATHs alone when given; else what `kata list` shows (the bundled catalogue, the workspace's, --problems).
    catalog = Catalog.load(args.paths, include_bundled=False) if args.paths else ctx.catalog
    console = Console(highlight=False, soft_wrap=True)
    runner = Runner()
    results = [load_failure(error) for error in catalog.errors]
    known = {**ctx.catalog.problems, **catalog.problems}  # what a builds_on may name
    for problem in catalog.problems.values():
        results.append(check_problem(problem, runner, mutants=args.mutants, catalog=known))
    for result in results:
        mutants = f"; {result.mutants}" if result.mutants else ""
        if result.ok:
            console.print(f"[green]ok[/]    {escape(result.name)}  ({len(result.passed)} checks{escape(mutants)})")
        else:
            console.print(f"[red]FAIL[/]  {escape(result.name)}{escape(mutants)}")
            for failure in result.failures:
                console.print(f"      - {escape(failure)}")
        for warning in result.warnings:
            console.print(f"      [yellow]warning[/]: {escape(warning)}")
    bad = sum(not r.ok for r in results)
    if any("mutant survives" in f for r in results for f in r.failures):
        console.print(escape("a surviving mutant needs a case that tells it apart from the reference, or (when no "
                             "input can) a [[mutants.equivalent]] entry in problem.toml with the reason "
                             "(problems/FORMAT.md)"))
    console.print(f"{len(results) - bad}/{len(results)} problems pass" + (f"; {bad} fail" if bad else ""))
    if not results:
        console.print("no problems found")
        return EXIT_REJECTED
    return EXIT_REJECTED if bad else 0


def grade(ctx: Context, path: Path, explicit: str | None, values: bool = False) -> RunReport:
    graded = ctx.grading.grade(path, read_solution(path), explicit, values=values)
    if graded.warning:
        ctx.err.print(f"[yellow]warning:[/] {escape(graded.warning)}")
    return graded.report


def cmd_run(ctx: Context, args: argparse.Namespace) -> int:
    from infrakata.core.grading.report import renderable, report_to_dict

    report = grade(ctx, Path(args.file), args.problem, values=args.values)
    ctx.warn_if_unconfined()  # before the report: after it, it would follow --json's object on a combined stream
    if args.json:
        print(json.dumps(report_to_dict(report), ensure_ascii=False))
    else:
        Console(highlight=False).print(renderable(report, wall_ms=(time.perf_counter() - STARTED) * 1e3))
    return EXIT_ACCEPTED if report.accepted else EXIT_REJECTED


def cmd_doctor(ctx: Context, args: argparse.Namespace) -> int:
    """The sandbox's layers and the GPUs here (core/sandbox/doctor.py). Exit 0 when every layer holds and the GPU
    (if any) can be graded on, 1 otherwise."""
    from infrakata.core.sandbox.doctor import diagnose, format_diagnosis

    diagnosis = diagnose(ctx.pool())
    if args.json:
        print(json.dumps(diagnosis.to_dict(), ensure_ascii=False, indent=2))
    else:
        Console(highlight=False, soft_wrap=True).print(escape(format_diagnosis(diagnosis)))
    return 0 if diagnosis.to_dict()["complete"] and diagnosis.gpu_problem is None else 1


def cmd_watch(ctx: Context, args: argparse.Namespace) -> int:
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
                report = grade(ctx, path, args.problem)
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


def watched(target: Path) -> tuple[Path, Path | None]:
    """`kata watch DIR` -> (DIR, None); `kata watch FILE` -> (its folder, the file): only it is graded."""
    if not target.exists():
        raise CannotGrade(f"{target}: no such folder; `kata watch DIR` watches a folder of solutions "
                          f"(or one file: `kata watch FILE`)")
    target = target.resolve()
    if target.is_file():
        return target.parent, target
    return target, None


def cmd_bench(ctx: Context, args: argparse.Namespace) -> int:
    from infrakata.core import bench
    from infrakata.core.bench.benchmark import bench_to_dict
    from infrakata.core.cli.bench import format_bench
    from infrakata.core.sandbox.gpu import INTERPRET_CLEARED_NOTE

    path = Path(args.file)
    source = read_solution(path)
    problem = ctx.problem_for(path, source, args.problem)
    if not benchmarked(problem):
        raise CannotGrade(f"{problem.slug} has no benchmark: {kind_of(problem).without_benchmark(problem)}")
    pool = ctx.pool()
    if pool.wait_ready().get("interpret_cleared"):
        ctx.err.print(f"[yellow]note:[/] {escape(INTERPRET_CLEARED_NOTE)}")
    result = bench.run(problem, source, path, pool, workspace=ctx.workspace)
    print(json.dumps(bench_to_dict(result), ensure_ascii=False) if args.json else format_bench(result))
    return EXIT_ACCEPTED if result.accepted else EXIT_REJECTED


def cmd_grade(ctx: Context, args: argparse.Namespace) -> int:
    from infrakata.core.batch.grader import GradeOptions
    from infrakata.core.cli.grade import grade_batch

    if args.jobs is not None and args.jobs < 1 or args.retries < 0:
        raise CannotGrade("--jobs is at least 1 and --retries at least 0")
    options = GradeOptions(
        paths=args.paths, manifest=args.manifest, out=args.out, junit=args.junit, jobs=args.jobs, resume=args.resume,
        bench=args.bench, ray=args.ray is not None, ray_address=args.ray or None, problem_paths=args.problems,
        max_retries=args.retries, hidden=args.hidden, isolation=ctx.isolation)
    try:
        return grade_batch(options, ctx.catalog, ctx.settings, ctx.workspace)
    except KeyboardInterrupt:
        return 130


def cmd_leaderboard(ctx: Context, args: argparse.Namespace) -> int:
    from infrakata.core.batch import results as batch
    from infrakata.core.cli.grade import fast_p_lines, leaderboard_table

    path = Path(args.results)
    try:
        rows = list(batch.read_results(path))
        empty = not rows and not path.read_text(encoding="utf-8").strip()
        key = Path(args.key).read_bytes() if args.key else batch.results_key()
    except FileNotFoundError as error:
        missing = Path(error.filename or path)
        raise CannotGrade(f"{missing}: no such file" + (f"; `kata grade ... --out {path}` writes one"
                                                          if missing == path else "")) from None
    except (OSError, UnicodeDecodeError) as error:
        raise CannotGrade(f"{path}: cannot read ({error})") from None
    if empty:
        raise CannotGrade(f"{path} is empty; `kata grade ... --out {path}` writes the results to rank")
    if not rows:
        raise CannotGrade(f"{path}: no result lines (a results file has one JSON object per line, as "
                          f"`kata grade --out` writes)")
    rows, unsigned = batch.verified(rows, key)
    if unsigned:
        ctx.err.print(f"[yellow]warning:[/] {unsigned} line(s) left out: not signed by "
                      f"{escape(args.key) if args.key else 'this grader'} (a line `kata grade` did not write, or "
                      f"one from another grader: pass its key with --key)")
    ranked = batch.leaderboard(rows)
    if not ranked:
        raise CannotGrade(f"{path}: none of its lines is a graded submission signed by this grader "
                          f"(could_not_grade lines are not ranked)")
    if args.problem:
        if args.problem not in ranked:
            raise CannotGrade(f"no results for {args.problem} in {path}; problems there: {', '.join(ranked)}")
        ranked = {args.problem: ranked[args.problem]}
    if args.json:
        print(json.dumps(ranked, ensure_ascii=False, indent=2))
    else:
        Console(highlight=False).print(leaderboard_table(ranked, args.top))
        for line in fast_p_lines([row for row in rows if not args.problem or row.get("problem") == args.problem],
                                 ctx.catalog):
            Console(highlight=False).print(line)
    return 0


def cmd_serve(ctx: Context, args: argparse.Namespace) -> int:
    # core never imports the server: the server registers itself as the `serve` command.
    from importlib.metadata import entry_points

    found = list(entry_points(group="infrakata.commands", name="serve"))
    if not found:
        raise CannotGrade("the language server is not installed with this infrakata (reinstall: scripts/setup)")
    serve: Callable[[list[str]], int] = found[0].load()
    return serve(args.serve_args)


def _at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number (at least 1)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: at least 1")
    return value


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
    p = sub.add_parser("list", help="list the problems, with your progress")
    p.add_argument("--json", action="store_true")
    p.add_argument("--area", "--category", dest="area", help="only this area (the problems' category)")
    p.add_argument("--difficulty", help="only Easy, Medium or Hard")
    p.add_argument("--tag", help="only problems with this tag")
    done = p.add_mutually_exclusive_group()
    done.add_argument("--todo", action="store_true", help="only problems not yet accepted here")
    done.add_argument("--solved", action="store_true", help="only problems accepted here")
    p.set_defaults(handler=cmd_list)
    p = sub.add_parser("show", help="show a problem's statement")
    p.add_argument("slug")
    p.set_defaults(handler=cmd_show)
    p = sub.add_parser("start", help="write a problem's starter file")
    p.add_argument("slug")
    p.add_argument("dir", nargs="?", default=".")
    p.set_defaults(handler=cmd_start)
    p = sub.add_parser("reset", help="rewrite a problem's starter over your file (kept as .bak)")
    p.add_argument("slug")
    p.add_argument("dir", nargs="?", default=".", help="the folder of the solution (or the file itself)")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask")
    p.set_defaults(handler=cmd_reset)
    p = sub.add_parser("hint", help="the next hint of a problem (or hints 1..N)")
    p.add_argument("slug")
    p.add_argument("n", nargs="?", type=int)
    p.set_defaults(handler=cmd_hint)
    p = sub.add_parser("solution", help="the editorial and the reference, once the kata is accepted")
    p.add_argument("slug")
    p.set_defaults(handler=cmd_solution)
    p = sub.add_parser("next", help="the first problem not yet solved, and how to start it")
    p.add_argument("dir", nargs="?", default=".")
    p.set_defaults(handler=cmd_next)
    p = sub.add_parser("check-problems", help="check problems: reference accepted, starter and wrong/ rejected, "
                       "statements, deterministic cases (default: the bundled catalogue)")
    p.add_argument("paths", nargs="*", metavar="PATH", help="problem folders or codestar JSON files")
    p.add_argument("--mutants", action="store_true",
                   help="also grade every mutant of each reference: some case must reject each one")
    p.set_defaults(handler=cmd_check_problems)
    p = sub.add_parser("doctor", help="the sandbox's layers on this machine, and why any is missing")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_doctor)
    p = sub.add_parser("run", help="grade a solution file")
    p.add_argument("file")
    p.add_argument("--problem", help="slug, problem folder or codestar JSON (default: matched from the file)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--values", action="store_true",
                   help="record and print the first failing case's values (arguments, locals, the output) by line")
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
    p.add_argument("--jobs", type=int, metavar="N", help="parallel gradings (default: three per core)")
    p.add_argument("--resume", action="store_true", help="skip the ids already in --out")
    p.add_argument("--bench", action="store_true", help="benchmark accepted kernel solutions (one per GPU at a time)")
    p.add_argument("--hidden", action="store_true", help="keep every expected value (and the differences from it) "
                   "out of the results, JUnit and summary: for leaderboards, where answers must not leak")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="grade on Ray actors (a local cluster, or the one at ADDRESS); needs the extra `ray`")
    p.add_argument("--retries", type=int, default=2, metavar="N",
                   help="Ray: times a submission is retried after its actor died (default 2)")
    p.set_defaults(handler=cmd_grade)
    p = sub.add_parser("leaderboard", help="rank the submissions of a `kata grade` results file")
    p.add_argument("results", metavar="RESULTS.jsonl")
    p.add_argument("--problem", metavar="SLUG")
    p.add_argument("--top", type=_at_least_one, metavar="N", help="the first N of each problem")
    p.add_argument("--key", metavar="FILE", help="the key of the grader that wrote the results (default: this "
                   "machine's, $XDG_DATA_HOME/infrakata/results.key); lines it did not sign are left out")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_leaderboard)
    # Its options (--tcp HOST:PORT, --log-level LEVEL) are the server's own: passed through.
    p = sub.add_parser("serve", help="run the language server on stdio (--tcp HOST:PORT for TCP)", add_help=False)
    p.set_defaults(handler=cmd_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # This process runs references on small cases, from several threads at once in a batch: torch's
    # intra-op pool (a thread per core) only spins beside them, 5 to 20 times the CPU of gradient-accumulation's
    # fresh case under load. Read when torch is first imported; a user's own setting stands.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "serve":
        args.serve_args = extra
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")

    try:
        if args.command in ("run", "bench"):
            read_solution(Path(args.file))  # a missing file is said at once, before any worker starts
        if args.command == "watch":
            watched(Path(args.dir))
        if args.command in ("run", "bench", "watch", "check-problems", "doctor"):
            from infrakata.core.sandbox.pool import WorkerPool

            pool = WorkerPool.shared()
            pool.idle_imports = args.command not in ONE_SHOT  # its workers would wait for them
            pool.start()  # warm the zygote while this process loads the problem
        start = Path(getattr(args, "file", None) or getattr(args, "dir", None) or ".")
        ctx = Context(start if start.exists() else Path("."), args.problems, args.isolation)
        if args.command in ("run", "bench", "watch", "grade", "check-problems", "doctor"):
            ctx.pool()  # held to the isolation asked for before anything is graded
        handler: Callable[[Context, argparse.Namespace], int] = args.handler
        return handler(ctx, args)
    except KataError as error:
        if args.command == "run" and args.json:  # a consumer of the JSON reads why on stdout too
            from infrakata.core.grading.report import could_not_grade_to_dict

            problem = error.problem if isinstance(error, CannotGrade) else None
            print(json.dumps(could_not_grade_to_dict(args.file, problem, str(error)), ensure_ascii=False))
        Console(stderr=True, highlight=False, soft_wrap=True).print(f"[red]kata:[/] {escape(str(error))}")
        return error.exit_code

