"""`kata grade`: a batch graded, its results written, and the summary table; the leaderboard's table."""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from infrakata.core.batch.grader import BatchGrader, GradeOptions, default_jobs, hide_row, run_local
from infrakata.core.batch.results_file import ResultsFile, write_junit
from infrakata.core.batch.rows import RankedEntry, ResultRow
from infrakata.core.batch.submissions import collect
from infrakata.core.catalog.loading import Catalog
from infrakata.core.config import Settings
from infrakata.core.errors import EXIT_ACCEPTED, EXIT_CANNOT_GRADE, EXIT_REJECTED, CannotGrade, UsageError
from infrakata.core.grading.report import COULD_NOT_GRADE
from infrakata.core.grading.results import VERDICTS


class Tally:
    """Verdict counts, overall and per problem, of this batch and the lines it resumed from."""

    def __init__(self) -> None:
        self.verdicts: Counter[str] = Counter()
        self.by_problem: dict[str, Counter[str]] = defaultdict(Counter)
        self.grading_ms = 0.0
        self.graded_now = 0
        self.resumed = 0
        self.retried = 0
        self._lock = threading.Lock()

    def add(self, result: ResultRow, resumed: bool = False) -> None:
        with self._lock:
            verdict = str(result.get("verdict"))
            self.verdicts[verdict] += 1
            self.by_problem[str(result.get("problem") or "(unresolved)")][verdict] += 1
            if resumed:
                self.resumed += 1
            else:
                self.graded_now += 1
                self.grading_ms += float(result.get("time_ms") or 0.0)

    @property
    def total(self) -> int:
        return sum(self.verdicts.values())

    def exit_code(self) -> int:
        if self.verdicts[COULD_NOT_GRADE]:
            return EXIT_CANNOT_GRADE
        return EXIT_ACCEPTED if self.verdicts["accepted"] == self.total else EXIT_REJECTED


VERDICT_COLUMNS: tuple[str, ...] = (*VERDICTS, COULD_NOT_GRADE)
SHORT: dict[str, str] = {"accepted": "ok", "wrong_answer": "WA", "runtime_error": "RE", "time_limit_exceeded": "TLE",
         "memory_limit_exceeded": "MLE", "forbidden": "forbid", "syntax_error": "syntax", "crashed": "crash",
         COULD_NOT_GRADE: "cannot"}  # a column's heading in `kata grade`'s table, per verdict


def summary_table(tally: Tally, elapsed_s: float) -> Any:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    shown = [v for v in VERDICT_COLUMNS if tally.verdicts[v]] + sorted(
        v for v in tally.verdicts if v not in VERDICT_COLUMNS)
    rate = tally.graded_now / elapsed_s if elapsed_s > 0 else 0.0
    caption = f"{tally.graded_now} graded in {elapsed_s:.1f} s ({rate:.1f}/s)"
    if tally.resumed:
        caption += f", {tally.resumed} already in the results file"
    if tally.retried:
        caption += f", {tally.retried} retried after a grading process died"
    table = Table(box=None, header_style="bold")
    table.add_column("problem")
    table.add_column("n", justify="right")
    for verdict in shown:
        table.add_column(SHORT.get(verdict, verdict), justify="right")
    for problem in sorted(tally.by_problem):
        counts = tally.by_problem[problem]
        table.add_row(problem, str(sum(counts.values())), *[str(counts[v] or "") for v in shown])
    table.add_row("[bold]all[/]", f"[bold]{tally.total}[/]", *[f"[bold]{tally.verdicts[v] or ''}[/]" for v in shown])
    return Group(table, Text(caption))


def leaderboard_table(ranked: dict[str, list[RankedEntry]], top: int | None = None) -> Any:
    from rich.console import Group
    from rich.table import Table

    parts = []
    for problem, entries in ranked.items():
        accepted = sum(e["verdict"] == "accepted" for e in entries)
        table = Table(box=None, header_style="bold", title=f"{problem}: {accepted}/{len(entries)} accepted",
                      title_justify="left")
        for column in ("#", "id", "verdict", "cases", "bench", "ms"):
            table.add_column(column, justify="right" if column in ("#", "cases", "bench", "ms") else "left")
        for e in entries[:top]:
            bench = f"{e['bench']:.1f} {e['unit'] or ''}".strip() if e["bench"] is not None else ""
            table.add_row(str(e["rank"]), str(e["id"]), str(e["verdict"]), f"{e['passed']}/{e['total']}", bench,
                          f"{e['time_ms'] or 0:.1f}")
        parts.append(table)
    return Group(*parts)


def fast_p_lines(rows: list[ResultRow], catalog: Catalog) -> list[str]:
    """KernelBench's fast_p over the rows of problems timed against their own Model, as KernelBench's are (none: no
    line)."""
    from infrakata.core.batch.results_file import FAST_P, fast_p
    from infrakata.core.catalog.kinds import kind_of

    kernelbench = [row for row in rows if (problem := catalog.problems.get(str(row.get("problem")))) is not None
                   and kind_of(problem).benchmark(problem) == "model"]
    return [fast_p(kernelbench, p).words() for p in FAST_P] if kernelbench else []


def grade_batch(options: GradeOptions, catalog: Catalog, settings: Settings, workspace: Path | None,
                console: Any = None, err: Any = None) -> int:
    """`kata grade`: grade, write the results (and JUnit), print the summary; -> the exit code
    (0 all accepted, 1 some not accepted, 2 some could not be graded)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = console or Console(highlight=False)
    err = err or Console(stderr=True, highlight=False, soft_wrap=True)
    if not options.paths and not options.manifest:
        raise UsageError("nothing to grade: pass files, folders or --manifest FILE")
    if options.resume and not options.out:
        raise UsageError("--resume needs --out FILE (the results to resume from)")
    for flag, target in (("--out", options.out), ("--junit", options.junit)):
        if target:
            _check_output(flag, Path(target))
    if options.ray:
        try:
            from infrakata.core.batch.on_ray import run_ray
        except ImportError as error:
            raise CannotGrade(str(error)) from None
    submissions = collect(options.paths, options.manifest)
    tally = Tally()
    try:
        results = ResultsFile(options.out, options.resume, echo=None if options.out else sys.stdout)
    except OSError as error:
        raise UsageError(f"--out {options.out}: cannot write ({error.strerror or error})") from None
    with results:
        for row in results.previous:
            tally.add(row, resumed=True)
        if results.unverified:
            err.print(f"[yellow]warning:[/] {results.unverified} line(s) of {escape(str(options.out))} were not "
                      f"written by this grader (no valid signature); their submissions are graded again")
        pending = [s for s in submissions if s.id not in results.done]
        started = time.perf_counter()
        with Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                      TimeRemainingColumn(), console=err, transient=err.is_terminal,
                      # Redrawn ten times a second on a terminal; elsewhere only its last state is printed,
                      # and the redrawing would take the batch's threads' time for nothing.
                      auto_refresh=err.is_terminal) as progress:
            task = progress.add_task("grading", total=len(pending), rate="")

            def on_result(result: ResultRow) -> None:
                if options.hidden:
                    result = hide_row(result)
                results.write(result)
                tally.add(result)
                elapsed = time.perf_counter() - started
                progress.update(task, advance=1, rate=f"{tally.graded_now / elapsed:.1f}/s" if elapsed else "")

            try:
                if options.ray:
                    def on_ready() -> None:  # the rate counts from when the actors are warm
                        nonlocal started
                        started = time.perf_counter()

                    tally.retried = run_ray(pending, options, on_result, err=err, catalog=catalog, on_ready=on_ready)
                else:
                    grader = BatchGrader(catalog, settings, workspace, bench=options.bench)
                    grader.pool.isolation = options.isolation
                    if pending:
                        grader.warm(pending[0])
                    run_local(pending, grader, options.jobs or default_jobs(), on_result)
            except KeyboardInterrupt:
                progress.stop()
                err.print(f"[yellow]interrupted:[/] {tally.graded_now} results written"
                          + (f" to {options.out}; rerun with --resume to grade the rest" if options.out else ""))
                raise
        elapsed = time.perf_counter() - started
        if options.junit:
            try:
                write_junit(results.rows(), options.junit)
            except OSError as error:
                where = f"; the results are in {options.out}" if options.out else ""
                raise UsageError(f"--junit {options.junit}: cannot write ({error.strerror or error}){where}") \
                    from None
        fast = fast_p_lines(list(results.rows()), catalog)
    (console if options.out else err).print(summary_table(tally, elapsed))
    for line in fast:
        (console if options.out else err).print(line)
    if tally.verdicts[COULD_NOT_GRADE]:
        err.print(f"[red]{tally.verdicts[COULD_NOT_GRADE]} could not be graded[/] (their lines say why)")
    return tally.exit_code()


def _check_output(flag: str, path: Path) -> None:
    """Before any grading: an output path that cannot be a file is said at once, not after the batch."""
    if path.is_dir():
        example = path / ("results.jsonl" if flag == "--out" else "junit.xml")
        raise UsageError(f"{flag} {path} is a folder; give a file (e.g. {example})")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{flag} {path}: cannot create {path.parent} ({error.strerror or error})") from None
