"""server/convert.py on its own: a RunReport becomes the diagnostics, lens titles and hover a user sees.

No server here: reports are built by hand (or by the real static checks) against the fixture problem,
and every range is read back as the text the editor would underline, in the client's encoding.
"""

from __future__ import annotations

import dataclasses

import pytest
from infrakata.core.catalog.loading import load_problem
from infrakata.core.catalog.problem import Problem
from infrakata.core.grading import static
from infrakata.core.grading.results import CaseResult, Finding, RunReport
from infrakata.core.paths import BUNDLED
from infrakata.server import convert
from lsprotocol import types
from pygls.uris import from_fs_path
from pygls.workspace.position_codec import PositionCodec

from .conftest import FIXTURE_PROBLEMS

URI = "file:///workspace/scale.py"
UTF16 = PositionCodec(types.PositionEncodingKind.Utf16)
# The entry point's name in `def scale(x, factor):`, line 2 of every source below.
ENTRY = types.Range(types.Position(1, 4), types.Position(1, 9))
WRONG = "# kata: fixture-scale\ndef scale(x, factor):\n    return x * factor + 1\n"


@pytest.fixture(scope="module")
def problem() -> Problem:
    return load_problem(FIXTURE_PROBLEMS / "fixture-scale")


def report(verdict: str, *cases: CaseResult, findings: tuple[Finding, ...] = (), time_ms: float = 0.0) -> RunReport:
    return RunReport("fixture-scale", "scale.py", verdict, list(cases), list(findings), time_ms=time_ms)


def underlined(source: str, where: types.Range, encoding: str = "utf-16") -> str:
    """The text a client speaking `encoding` underlines for a one-line range (decoded without pygls)."""
    assert where.start.line == where.end.line
    codec, width = {"utf-16": ("utf-16-le", 2), "utf-8": ("utf-8", 1), "utf-32": ("utf-32-le", 4)}[encoding]
    line = source.splitlines()[where.start.line].encode(codec)
    return line[where.start.character * width:where.end.character * width].decode(codec)


# -- diagnostics -------------------------------------------------------------------------------


def test_one_error_per_failing_case_coded_by_case_id_and_none_for_passed_or_skipped(problem: Problem):
    graded = report("wrong_answer",
                    CaseResult(1, "two times three", "passed"),
                    CaseResult(2, "a tenth", "failed", message="out: expected 0.1, got 1.1"),
                    CaseResult(3, "negative", "timeout", message="exceeded the time limit of 20 s"),
                    CaseResult(4, "more", "skipped", message="not run: case 3 exceeded the time limit"))
    diagnostics = convert.diagnostics(graded, problem, WRONG, URI, UTF16)
    assert [d.code for d in diagnostics] == ["2", "3"]
    assert all(d.source == "kata" and d.severity == types.DiagnosticSeverity.Error for d in diagnostics)
    assert [d.message for d in diagnostics] == ["case 2 (a tenth): out: expected 0.1, got 1.1",
                                                "case 3 (negative): exceeded the time limit of 20 s"]


def test_a_passing_report_has_no_diagnostics(problem: Problem):
    graded = report("accepted", *(CaseResult(i, f"case {i}", "passed") for i in (1, 2, 3)))
    assert convert.diagnostics(graded, problem, WRONG, URI, UTF16) == []


def test_a_case_without_a_name_or_message_still_says_what_happened(problem: Problem):
    [diagnostic] = convert.diagnostics(report("runtime_error", CaseResult(7, "", "error")), problem, WRONG, URI, UTF16)
    assert diagnostic.message == "case 7: error"


def test_a_case_with_no_line_or_the_def_line_is_placed_on_the_entry_points_name(problem: Problem):
    graded = report("wrong_answer", CaseResult(1, "a", "failed", message="wrong"),
                    CaseResult(2, "b", "error", message="boom", line=2))
    diagnostics = convert.diagnostics(graded, problem, WRONG, URI, UTF16)
    assert [d.range for d in diagnostics] == [ENTRY, ENTRY]
    assert underlined(WRONG, diagnostics[0].range) == "scale"


def test_a_case_that_raised_deeper_is_placed_on_that_lines_text(problem: Problem):
    source = ("# kata: fixture-scale\n"
              "def scale(x, factor):\n"
              "    if factor < 0:\n"
              "        raise ValueError('no negatives')   \n"
              "    return x * factor\n")
    graded = report("runtime_error", CaseResult(3, "negative", "error", message="ValueError: no negatives", line=4))
    [diagnostic] = convert.diagnostics(graded, problem, source, URI, UTF16)
    # The line's text, without its indentation or trailing blanks.
    assert diagnostic.range == types.Range(types.Position(3, 8), types.Position(3, 40))
    assert underlined(source, diagnostic.range) == "raise ValueError('no negatives')"


def test_related_information_points_at_the_entry_point_and_the_statement_only_when_asked(problem: Problem):
    source = WRONG.replace("return x * factor + 1", "y = x * factor\n    return y + 1")
    graded = report("wrong_answer", CaseResult(1, "two times three", "failed", message="wrong", line=4),
                    CaseResult(2, "a tenth", "failed", message="wrong"))
    deeper, at_entry = convert.diagnostics(graded, problem, source, URI, UTF16, related=True)
    assert [(r.location.uri, r.location.range, r.message) for r in deeper.related_information] == [
        (URI, ENTRY, "while grading scale() on case 1"),
        (from_fs_path(str(problem.statement_path)), types.Range(types.Position(0, 0), types.Position(0, 0)),
         "the statement of fixture-scale")]
    # Already on the entry point: only the statement.
    assert [r.message for r in at_entry.related_information] == ["the statement of fixture-scale"]
    assert all(d.related_information is None for d in convert.diagnostics(graded, problem, source, URI, UTF16))


@pytest.mark.parametrize(("encoding", "start", "end"), [
    (types.PositionEncodingKind.Utf16, 22, 26),  # 😀 is two UTF-16 units
    (types.PositionEncodingKind.Utf8, 25, 29),   # 😀 four bytes, é two
    (types.PositionEncodingKind.Utf32, 21, 25),  # code points
])
def test_ranges_after_non_ascii_text_are_in_the_clients_encoding(problem: Problem, encoding, start: int, end: int):
    source = "# kata: fixture-scale\ndef scale(x, factor):\n    s = '😀é'; return eval(s) * factor  \n"
    codec = PositionCodec(encoding)
    # The real static check's finding (1-based code points), and a case that raised on the same line.
    [finding] = static.check(source, problem.forbidden_modules, problem.forbidden_calls)
    graded = report("forbidden", CaseResult(1, "two times three", "error", message="NameError", line=3),
                    findings=(finding,))
    call, case = convert.diagnostics(graded, problem, source, URI, codec)
    assert call.range == types.Range(types.Position(2, start), types.Position(2, end))
    assert underlined(source, call.range, encoding.value) == "eval"
    assert underlined(source, case.range, encoding.value) == "s = '😀é'; return eval(s) * factor"


def test_a_tolerance_message_is_kept_whole(problem: Problem):
    message = ("out[3, 7]: expected 1.000e+00, got 1.002e+00, |diff| 2.0e-03 > atol 1e-04 + rtol 1e-04 * |expected|; "
               "5 of 64 elements (7.81%) outside; max rel 2.0e-03; 1 NaN where finite values were expected\n"
               "worst element at index [3, 7]")
    graded = report("wrong_answer", CaseResult(2, "a tenth", "failed", message=message, max_abs_diff=2e-3))
    [diagnostic] = convert.diagnostics(graded, problem, WRONG, URI, UTF16)
    assert diagnostic.message == f"case 2 (a tenth): {message}"


def test_a_syntax_error_is_one_diagnostic_on_its_exact_range(problem: Problem):
    source = "# kata: fixture-scale\ndef scale(x, factor):\n    return (x * factor\n"
    [finding] = static.syntax_findings(source)
    assert (finding.line, finding.column, finding.end_line, finding.end_column) == (3, 12, 3, 13)
    [diagnostic] = convert.diagnostics(report("syntax_error", findings=(finding,)), problem, source, URI, UTF16)
    assert diagnostic.range == types.Range(types.Position(2, 11), types.Position(2, 12))
    assert underlined(source, diagnostic.range) == "("
    assert (diagnostic.code, diagnostic.source, diagnostic.severity) == (
        "syntax-error", "kata", types.DiagnosticSeverity.Error)
    assert diagnostic.message == "SyntaxError: '(' was never closed"


def test_forbidden_findings_keep_their_code_severity_and_multi_line_range(problem: Problem):
    source = "# kata: fixture-scale\nfrom os import (\n    path)\ndef scale(x, factor):\n    return x * factor\n"
    findings = (Finding(2, 1, 3, 10, "forbidden-module", "module 'os' is forbidden in this problem; remove the import"),
                Finding(5, 16, 5, 22, "slow-call", "a note", severity="warning"))
    module, note = convert.diagnostics(report("forbidden", findings=findings), problem, source, URI, UTF16)
    assert module.range == types.Range(types.Position(1, 0), types.Position(2, 9))
    assert (module.code, module.severity) == ("forbidden-module", types.DiagnosticSeverity.Error)
    assert underlined(source, note.range) == "factor"
    assert (note.code, note.severity) == ("slow-call", types.DiagnosticSeverity.Warning)


def test_a_finding_past_the_end_of_the_text_is_clamped_into_it(problem: Problem):
    source = "# kata: fixture-scale\ndef scale(x, factor):\n    return x * factor"
    finding = Finding(4, 1, 4, 2, "syntax-error", "SyntaxError: unexpected EOF")
    [diagnostic] = convert.diagnostics(report("syntax_error", findings=(finding,)), problem, source, URI, UTF16)
    assert diagnostic.range == types.Range(types.Position(2, 0), types.Position(2, 1))


def test_a_failed_run_with_nothing_to_blame_still_shows_on_the_entry_point(problem: Problem):
    [diagnostic] = convert.diagnostics(report("crashed"), problem, WRONG, URI, UTF16)
    assert (diagnostic.range, diagnostic.code, diagnostic.message) == (ENTRY, "crashed", "crashed: no case ran")
    # Without a def to point at, the first line's text.
    [diagnostic] = convert.diagnostics(report("crashed"), problem, "# kata: fixture-scale\n", URI, UTF16)
    assert diagnostic.range == types.Range(types.Position(0, 0), types.Position(0, 21))


def test_a_file_no_problem_claims_gets_one_quiet_diagnostic_saying_how_to_claim_it():
    message = "scale.py: no problem matches this file. Add a first line '# kata: <slug>'"
    diagnostic = convert.unmatched_diagnostic(message, "def scale(x, factor):\n    return x\n")
    assert diagnostic.message == message
    assert (diagnostic.code, diagnostic.source, diagnostic.severity) == (
        "no-problem", "kata", types.DiagnosticSeverity.Information)
    assert diagnostic.range == types.Range(types.Position(0, 0), types.Position(0, 0))


# -- lens titles -------------------------------------------------------------------------------


def _cases(*statuses: str) -> list[CaseResult]:
    return [CaseResult(i, f"case {i}", status) for i, status in enumerate(statuses, 1)]


@pytest.mark.parametrize(("verdict", "statuses", "title"), [
    ("wrong_answer", ("passed", "failed", "passed", "passed"), "kata: run (3/4 cases passed)"),
    ("accepted", ("passed",) * 4, "kata: run (4/4 cases passed)"),
    ("time_limit_exceeded", ("passed", "passed", "timeout", "skipped"),
     "kata: run (2/4 cases passed, time limit exceeded)"),
    ("runtime_error", ("error", "error"), "kata: run (0/2 cases passed, runtime error)"),
    ("syntax_error", (), "kata: run (syntax error)"),
    ("forbidden", ("skipped", "skipped"), "kata: run (forbidden)"),
])
def test_the_run_lens_title_summarises_the_last_result(verdict: str, statuses: tuple[str, ...], title: str):
    assert convert.run_lens_title(RunReport("p", "f.py", verdict, _cases(*statuses))) == title


def test_the_run_lens_before_any_result():
    assert convert.run_lens_title(None) == "kata: run"


def test_benchmark_lens_titles():
    assert convert.benchmark_lens_title(None) == "kata: benchmark on CUDA"
    assert convert.benchmark_lens_title({"correct": True, "geomean_gbps": 812.345, "unit": "GB/s"}) == \
        "kata: benchmark on CUDA (812.3 GB/s)"
    assert convert.benchmark_lens_title({"correct": True, "geomean_gbps": None, "unit": "GB/s"}) == \
        "kata: benchmark on CUDA (correct; timing needs a CUDA GPU)"
    assert convert.benchmark_lens_title({"correct": False, "gate_message": "line 3: call to 'eval' is forbidden"}) \
        == "kata: benchmark on CUDA (rejected: line 3: call to 'eval' is forbidden)"


def test_a_long_rejection_is_cut_to_one_short_line():
    reason = ("shape (4096, 4096): the call on seed 7's inputs (after 3 warm-up calls) returned a wrong answer: "
              "params_out[0, 1]: expected 1.0, got 2.0")
    figure = convert.benchmark_figure({"correct": False, "gate_message": f"{reason}:\nTraceback ...\n"})
    assert figure == "rejected: " + reason[:convert.LENS_REASON_CHARS - 1] + "…"
    assert "\n" not in figure and len(figure) == len("rejected: ") + convert.LENS_REASON_CHARS
    # A reason that fits is whole, its trailing colon dropped.
    assert convert.benchmark_figure({"correct": False, "gate_message": "cancelled:\nmore"}) == "rejected: cancelled"


def test_a_cases_note_follows_its_message_in_its_diagnostic(problem: Problem):
    note = "took 12.4 s, including the first compile of its kernels (the 5 s limit applies from the second call)"
    graded = report("wrong_answer", CaseResult(1, "big", "failed", message="out[0]: expected 1, got 2", note=note),
                    CaseResult(2, "small", "passed"))
    [diagnostic] = convert.diagnostics(graded, problem, WRONG, URI, UTF16)
    assert diagnostic.message == f"case 1 (big): out[0]: expected 1, got 2\n{note}"


# -- hover -------------------------------------------------------------------------------------


def test_hover_shows_the_problem_its_limits_and_tolerance_then_the_statement(problem: Problem):
    text = convert.hover_markdown(problem, None, None)
    assert text.startswith("### Scale a number (`fixture-scale`)\n\nEasy · Test\n\n")
    assert "**Limits:** 20 s per case, 256 MB" in text
    assert "**Tolerance:** |actual − expected| ≤ atol 0.0001 + rtol 0.0001 · |expected|" in text
    assert "Last result" not in text
    # The statement, its Chinese wrapped line joined without the space Markdown would put there.
    assert text.endswith("---\n\n# Scale a number\n\n## English\n\nReturn `x * factor`: `x` multiplied by\n"
                         "the factor.\n\n## 中文\n\n返回 `x * factor`：把 `x` 乘以系数。")


def test_hover_shows_the_last_result_per_case_with_cells_kept_in_their_column(problem: Problem):
    graded = report("wrong_answer", CaseResult(1, "two times three", "passed", time_ms=1.234),
                    CaseResult(2, "a tenth", "failed", time_ms=2.0,
                               message="out: |diff| 1.0e+00 > atol 1e-04 + rtol 1e-04 * |expected|\nat index 0"),
                    CaseResult(3, "negative", "skipped"), time_ms=12.4)
    text = convert.hover_markdown(problem, graded, 3)
    assert "**Last result (version 3):** wrong answer, 1/3 cases passed in 12 ms" in text
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert rows == [
        "| case | status | time | message |",
        "| --- | --- | --- | --- |",
        "| 1 two times three | passed | 1.2 ms |  |",
        "| 2 a tenth | failed | 2.0 ms | "
        "out: \\|diff\\| 1.0e+00 > atol 1e-04 + rtol 1e-04 * \\|expected\\| at index 0 |",
        "| 3 negative | skipped | 0.0 ms |  |",
    ]
    assert "(version" not in convert.hover_markdown(problem, graded, None)


def test_hover_shows_a_passed_cases_note(problem: Problem):
    note = "took 12.4 s, including the first compile of its kernels (the 5 s limit applies from the second call)"
    graded = report("accepted", CaseResult(1, "big", "passed", time_ms=12400.0, note=note))
    assert f"| 1 big | passed | 12400.0 ms | {note} |" in convert.hover_markdown(problem, graded, 1).splitlines()


def test_hover_of_a_relative_norm_problem_and_one_without_a_statement():
    adamw = load_problem(BUNDLED / "quantized-adamw-8bit")
    tolerance = "**Tolerance:** ‖actual − expected‖ / ‖expected‖ ≤ 4e-05"
    assert tolerance in convert.hover_markdown(adamw, None, None)
    bare = dataclasses.replace(adamw, statement="  \n", difficulty="", category="")
    text = convert.hover_markdown(bare, None, None)
    assert text.endswith("---\n\n(this problem has no statement)")
    assert text.split("\n\n")[1].startswith("**Limits:**")  # no empty facts line
