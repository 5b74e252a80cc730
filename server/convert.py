"""RunReport -> LSP diagnostics, code lens titles, inlay hints and hover text.

Core speaks 1-based lines and 1-based code-point columns; LSP speaks 0-based lines and columns in
the negotiated encoding (UTF-16 unless the client offered another), so every range goes through
the document's PositionCodec, measured on the text that was graded.
"""

from __future__ import annotations

from typing import Any

from infrakata.core.catalog.matching import header_slug
from infrakata.core.catalog.problem import Problem
from infrakata.core.catalog.statement import rendered
from infrakata.core.grading.results import CaseResult, Finding, RunReport, case_text, verdict_words
from infrakata.core.grading.static import find_entry_point
from lsprotocol import types
from pygls.uris import from_fs_path
from pygls.workspace.position_codec import PositionCodec

SOURCE = "kata"
_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
}


class Text:
    """The graded text, for placing ranges: lines and the client's position encoding."""

    def __init__(self, source: str, codec: PositionCodec):
        self.lines = source.splitlines() or [""]
        self.codec = codec
        self.source = source

    def range(self, line: int, column: int, end_line: int, end_column: int) -> types.Range:
        """1-based lines and code-point columns (end exclusive) -> an LSP range."""
        last = len(self.lines) - 1
        start_line, stop_line = min(max(line - 1, 0), last), min(max(end_line - 1, 0), last)
        start = types.Position(start_line, min(max(column - 1, 0), len(self.lines[start_line])))
        end = types.Position(stop_line, min(max(end_column - 1, 0), len(self.lines[stop_line])))
        if (end.line, end.character) < (start.line, start.character):
            end = start
        return self.codec.range_to_client_units(self.lines, types.Range(start, end))

    def line_range(self, line: int) -> types.Range:
        """The non-blank text of a 1-based line."""
        index = min(max(line - 1, 0), len(self.lines) - 1)
        text = self.lines[index]
        first = len(text) - len(text.lstrip())
        return self.range(index + 1, first + 1, index + 1, len(text.rstrip()) + 1)

    def entry_range(self, entry_point: str) -> types.Range:
        """The entry point's name in its `def`; the first line when the file does not define it."""
        found = find_entry_point(self.source, entry_point)
        if found is None:
            return self.line_range(1)
        line, column = found
        return self.range(line, column, line, column + len(entry_point))


def entry_range(source: str, problem: Problem, codec: PositionCodec) -> types.Range:
    return Text(source, codec).entry_range(problem.entry_point)


def _finding_diagnostic(text: Text, finding: Finding) -> types.Diagnostic:
    return types.Diagnostic(
        range=text.range(finding.line, finding.column, finding.end_line, finding.end_column),
        message=finding.message,
        severity=_SEVERITY.get(finding.severity, types.DiagnosticSeverity.Error),
        code=finding.code,
        source=SOURCE,
    )


def case_message(case: CaseResult) -> str:
    return f"{case_title(case)}: {case_text(case) or case.status}"


def _case_diagnostic(text: Text, entry: types.Range, problem: Problem, case: CaseResult, uri: str,
                     related: bool) -> types.Diagnostic:
    # A hidden case's wrong answer shows nothing of its values: it is said on the entry point, so that the line
    # that returned is left to the cases that show what went wrong there (Neovim shows one diagnostic a line).
    hidden_answer = case.hidden and case.status == "failed"
    at_entry = case.line is None or case.line - 1 == entry.start.line or hidden_answer
    where = entry if at_entry or case.line is None else text.line_range(case.line)
    information = None
    if related:
        information = []
        if not at_entry:
            information.append(types.DiagnosticRelatedInformation(
                types.Location(uri, entry), f"while grading {problem.entry_point}() on case {case.id}"))
        if problem.statement_path is not None:
            information.append(types.DiagnosticRelatedInformation(
                types.Location(from_fs_path(str(problem.statement_path)) or "", types.Range(
                    types.Position(0, 0), types.Position(0, 0))),
                f"the statement of {problem.slug}"))
    return types.Diagnostic(
        range=where,
        message=case_message(case),
        # A hidden case says only that it failed too: a warning, so that an editor that shows one diagnostic of
        # a line by severity (Neovim's `severity_sort`) shows a case that teaches.
        severity=types.DiagnosticSeverity.Warning if case.hidden and case.status == "failed" else
        types.DiagnosticSeverity.Error,
        code=str(case.id),
        source=SOURCE,
        related_information=information or None,
    )


def _teaches(case: CaseResult) -> tuple[int, int]:
    """The order failing cases are published in, by what each teaches: the one that shows its values (the
    arguments, the locals, the wrong output), then the other visible ones, the hidden ones last (they say only
    that they failed); in case order within each."""
    return (2 if case.hidden else 0 if case.values else 1), case.id


def diagnostics(report: RunReport, problem: Problem, source: str, uri: str, codec: PositionCodec,
                related: bool = False) -> list[types.Diagnostic]:
    """One diagnostic per static finding and per failing case; none for a passing file."""
    text = Text(source, codec)
    entry = text.entry_range(problem.entry_point)
    result = [_finding_diagnostic(text, finding) for finding in report.findings]
    failing = [case for case in report.cases if case.status not in ("passed", "skipped")]
    result += [_case_diagnostic(text, entry, problem, case, uri, related) for case in sorted(failing, key=_teaches)]
    if not result and report.verdict != "accepted":
        # A run that failed without a case or a finding to blame: still say so, where the learner looks.
        result.append(types.Diagnostic(
            range=entry,
            message=f"{verdict_words(report.verdict)}: no case ran",
            severity=types.DiagnosticSeverity.Error,
            code=report.verdict,
            source=SOURCE,
        ))
    return result


def unmatched_diagnostic(message: str, source: str) -> types.Diagnostic:
    """A file no problem claims: say how to claim one, without shouting; but where its `# kata:` header names a
    problem that is not there, a warning on that header (the learner asked for one)."""
    header = header_slug(source)
    line = header[0] - 1 if header else 0
    return types.Diagnostic(
        range=types.Range(types.Position(line, 0), types.Position(line, 0)),
        message=message,
        severity=types.DiagnosticSeverity.Warning if header else types.DiagnosticSeverity.Information,
        code="no-problem",
        source=SOURCE,
    )


def result_summary(report: RunReport) -> str:
    """`3/4 cases passed`, `4/4 cases passed`, `syntax error`, `2/4 cases passed, time limit exceeded`."""
    if not report.cases or all(case.status == "skipped" for case in report.cases):
        return verdict_words(report.verdict)
    summary = f"{report.passed}/{report.total} cases passed"
    if report.verdict not in ("accepted", "wrong_answer"):
        summary += f", {verdict_words(report.verdict)}"
    return summary


def run_lens_title(report: RunReport | None) -> str:
    return "kata: run" if report is None else f"kata: run ({result_summary(report)})"


LENS_REASON_CHARS = 60


def benchmark_figure(result: dict[str, Any]) -> str:
    """The headline of a `kata bench --json` object: `812 GB/s`, or why there is no figure."""
    if not result.get("correct"):
        reason = str(result.get("gate_message", "")).splitlines()[0].rstrip(": ")
        # A lens is one short line; the whole reason is in the result and the hover.
        return "rejected: " + (reason if len(reason) <= LENS_REASON_CHARS else reason[:LENS_REASON_CHARS - 1] + "…")
    value = result.get("geomean_gbps")
    if value is None:
        return "correct; timing needs a CUDA GPU"
    figure = f"{value:.4g} {result.get('unit', '')}".strip()
    return f"{figure}: below the gate" if result.get("performance") == "below_gate" else figure


def benchmark_lens_title(result: dict[str, Any] | None) -> str:
    title = "kata: benchmark on CUDA"
    return title if result is None else f"{title} ({benchmark_figure(result)})"


def inlay_hints(case: CaseResult, entry_line: int | None, source: str, codec: PositionCodec,
                within: types.Range) -> list[types.InlayHint]:
    """A case's values at the end of their lines (within the range asked for): `case 2 (14B model):`
    at the `def`, then `name = value` per argument and local, and the wrong output beside the expected."""
    text = Text(source, codec)
    hints = []
    shown: list[tuple[int, str, types.InlayHintKind | None]] = \
        [(entry_line, f"{case_title(case)}:", None)] if entry_line is not None else []
    shown += [(v.line, v.text, types.InlayHintKind.Parameter if v.kind == "argument" else None)
              for v in case.values]
    for line, title, kind in shown:
        index = line - 1
        if not 0 <= index < len(text.lines) or not within.start.line <= index <= within.end.line:
            continue
        end = len(text.lines[index].rstrip()) + 1
        hints.append(types.InlayHint(text.range(line, end, line, end).start, title, kind=kind, padding_left=True))
    return hints


def case_title(case: CaseResult) -> str:
    return f"case {case.id} ({case.name})" if case.name else f"case {case.id}"


def fenced(text: str) -> str:
    """A Markdown code block that `text` cannot close early."""
    ticks = 3
    while "`" * ticks in text:
        ticks += 1
    fence = "`" * ticks
    return f"{fence}text\n{text}\n{fence}"


def values_markdown(case: CaseResult, line: int, markdown: bool) -> str | None:
    """The whole values shown on a 1-based line (the hover of an annotated line), or None."""
    found = [v for v in case.values if v.line == line]
    if not found:
        return None
    kinds = {"argument": "argument", "local": "local, at its last assignment", "output": "the output"}
    if not markdown:
        return "\n\n".join([case_title(case)] + [f"{v.name} ({kinds[v.kind]}):\n{v.detail}" for v in found])
    parts = [f"**{case_title(case)}**"]
    parts += [f"`{v.name}` ({kinds[v.kind]}):\n{fenced(v.detail)}" for v in found]
    return "\n\n".join(parts)


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def hover_markdown(problem: Problem, report: RunReport | None, version: int | None) -> str:
    """Statement, limits and tolerances, and the last result per case."""
    parts = [f"### {problem.title} (`{problem.slug}`)"]
    facts = [f for f in (problem.difficulty, problem.category) if f]
    if facts:
        parts.append(" · ".join(facts))
    grading = problem.grading
    if grading.comparison == "relative_norm":
        tolerance = f"‖actual − expected‖ / ‖expected‖ ≤ {grading.tolerance:g}"
    else:
        tolerance = f"|actual − expected| ≤ atol {problem.atol:g} + rtol {problem.rtol:g} · |expected|"
    parts.append(f"**Limits:** {problem.time_limit:g} s per case, {problem.memory_limit_mb} MB  \n"
                 f"**Tolerance:** {tolerance}")
    if report is not None:
        graded = f" (version {version})" if version is not None else ""
        lines = [f"**Last result{graded}:** {verdict_words(report.verdict)}, "
                 f"{report.passed}/{report.total} cases passed in {report.time_ms:.0f} ms"]
        if report.cases:
            lines += ["", "| case | status | time | message |", "| --- | --- | --- | --- |"]
            lines += [f"| {case.id} {_cell(case.name)} | {case.status} | {case.time_ms:.1f} ms | "
                      f"{_cell(case_text(case))} |" for case in report.cases]
        parts.append("\n".join(lines))
    parts.append("---")
    parts.append(rendered(problem.statement.strip()) or "(this problem has no statement)")
    return "\n\n".join(parts)
