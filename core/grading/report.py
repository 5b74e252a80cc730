"""RunReport -> the JSON of `kata run --json` (the contract in docs/TERMINAL.md) and terminal text."""

from __future__ import annotations

import itertools
from dataclasses import asdict
from typing import Any

from infrakata.core.grading.results import CaseResult, RunReport
from rich.console import Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

STATUS_STYLE = {"passed": ("✓", "green"), "failed": ("✗", "red"), "error": ("!", "red"),
                "timeout": ("⧗", "yellow"), "memory": ("M", "yellow"), "skipped": ("-", "dim")}


def report_to_dict(report: RunReport) -> dict[str, Any]:
    """The dataclasses as they are (so the JSON cannot drift from the types), times rounded to
    microseconds, plus the pass counts."""
    data = asdict(report)
    data.update(passed=report.passed, total=report.total, time_ms=round(report.time_ms, 3))
    for case in data["cases"]:
        case["time_ms"] = round(case["time_ms"], 3)
    return data


COULD_NOT_GRADE = "could_not_grade"


def could_not_grade_to_dict(file: str | None, problem: str | None, reason: str) -> dict[str, Any]:
    """What `kata run --json` prints, and a `kata grade` line holds, for a file that could not be graded:
    the keys of a report, the verdict `could_not_grade`, and why in "reason". `problem`: the slug of
    the problem it was to be graded against, None when none was found."""
    return {**report_to_dict(RunReport(problem or "", file or "", "wrong_answer")), "problem": problem, "file": file,
            "verdict": COULD_NOT_GRADE, "reason": reason}


def summary_line(report: RunReport) -> str:
    if report.verdict in ("syntax_error", "forbidden"):
        return f"{report.verdict.replace('_', ' ')}: {report.findings[0].message}" if report.findings \
            else report.verdict
    return f"{report.verdict.replace('_', ' ')}: {report.passed}/{report.total} cases passed"


def timing(report: RunReport, wall_ms: float | None = None) -> str:
    """The time the user waited (wall) and, beside it, the grading's own share; and, for a kernel problem (graded
    on a device, or on the CPU through the Triton interpreter), where it ran."""
    where = f", on {report.device}" if report.device not in ("", "cpu") else ""
    if wall_ms is None or wall_ms < report.time_ms:
        return f"({report.time_ms:.0f} ms{where})"
    return f"({wall_ms:.0f} ms wall, {report.time_ms:.0f} ms grading{where})"


def _rows(cases: list[CaseResult]) -> list[tuple[str, str, CaseResult]]:
    """(number, name, case) per row: each run of cases not run for one reason (after a timeout: 20 of them on
    some katas) is one row, "2-8" and "7 cases"."""
    rows: list[tuple[str, str, CaseResult]] = []
    for _, grouped in itertools.groupby(cases, key=lambda c: c.message if c.status == "skipped" else c.id):
        run = list(grouped)
        first, last = run[0], run[-1]
        rows.append((str(first.id), first.name, first) if len(run) == 1 else
                    (f"{first.id}-{last.id}", f"{len(run)} cases", first))
    return rows


def renderable(report: RunReport, wall_ms: float | None = None) -> Group:
    """Terminal text. `wall_ms`: how long the user waited (a cold start included), shown beside the
    grading time. A case failing exactly as an earlier one says so instead of repeating its text."""
    colour = "green" if report.accepted else "red"
    head = Text.assemble((f"{report.problem}", "bold"), f"  {report.file}\n",
                         (summary_line(report), f"bold {colour}"), f"  {timing(report, wall_ms)}")
    parts: list[Any] = [head]
    for finding in report.findings:
        parts.append(Text(f"  {report.file}:{finding.line}:{finding.column}: {finding.code}: {finding.message}",
                          style="red"))
    if report.cases:
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        for column in ("", "#", "case", "ms", "detail"):
            table.add_column(column, overflow="fold")
        first_with: dict[tuple[str, str], int] = {}
        for number, name, case in _rows(report.cases):
            symbol, style = STATUS_STYLE.get(case.status, ("?", ""))
            detail = case.message if case.status != "passed" else ""
            if case.line and case.status not in ("passed", "skipped"):
                detail = f"line {case.line}: {detail}"
            if case.status in ("error", "timeout", "memory") and detail:
                same = first_with.setdefault((case.status, detail), case.id)
                if same != case.id:
                    detail = f"same error as case {same}"
            detail = "\n".join(part for part in (detail, case.note) if part)
            table.add_row(Text(symbol, style=style), number, escape(name), f"{case.time_ms:.1f}", Text(detail))
        parts.append(table)
        # `kata run --values`: the first failing case's values, as the editor shows them beside the code.
        for case in report.cases:
            if case.values:
                parts.append(Text(f"values of case {case.id} ({case.name}), by line:", style="bold"))
                parts += [Text(f"  {value.line:>4}  {value.text}", style="cyan") for value in case.values]
    if report.output.strip():
        parts.append(Text("output:", style="bold"))
        parts.append(Text(report.output.rstrip()[-2000:], style="dim"))
    return Group(*parts)

