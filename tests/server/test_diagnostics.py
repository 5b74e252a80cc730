"""Grading on open and save: diagnostics per failing case and finding, exactly placed."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .conftest import CORRECT, WRONG, KataClient

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_open_grades_and_a_passing_file_has_no_diagnostics(shared: KataClient, uri: str):
    shared.open(uri, CORRECT)
    assert await shared.diagnostics_for(uri, 1) == []
    result = await shared.result_for(uri, 1)
    assert result["report"]["verdict"] == "accepted"
    assert (result["report"]["passed"], result["report"]["total"]) == (3, 3)


async def test_one_diagnostic_per_failing_case_on_the_line_that_returned(shared: KataClient, uri: str):
    shared.open(uri, CORRECT)
    await shared.diagnostics_for(uri, 1)
    shared.edit_and_save(uri, WRONG, 2)
    diagnostics = await shared.diagnostics_for(uri, 2)
    assert [d.code for d in diagnostics] == ["1", "2", "3"]
    for diagnostic in diagnostics:
        assert diagnostic.source == "kata"
        assert diagnostic.severity == types.DiagnosticSeverity.Error
        # The `return` that gave the wrong value (line 3), not the `def`.
        assert diagnostic.range == types.Range(types.Position(2, 4), types.Position(2, 25))
    assert diagnostics[0].message.startswith("case 1 (two times three): ")
    assert "expected 6" in diagnostics[0].message and "got 7" in diagnostics[0].message
    # relatedInformation points at the entry point and the statement, for a client that supports it
    # (VS Code does).
    entry, statement = diagnostics[0].related_information
    assert entry.location.uri == uri and entry.location.range.start.line == 1
    assert statement.location.uri.endswith("fixture-scale/README.md")


async def test_an_exception_is_reported_on_the_line_that_raised(shared: KataClient, uri: str):
    source = ("# kata: fixture-scale\n"
              "def scale(x, factor):\n"
              "    y = x * factor\n"
              "    raise ValueError(f'no {y}')\n")
    shared.open(uri, source)
    diagnostics = await shared.diagnostics_for(uri, 1)
    assert len(diagnostics) == 3
    assert all(d.range.start.line == 3 for d in diagnostics)
    assert diagnostics[0].range == types.Range(types.Position(3, 4), types.Position(3, 31))
    assert "ValueError" in diagnostics[0].message and "no 6" in diagnostics[0].message
    related = diagnostics[0].related_information
    assert related[0].location.uri == uri and related[0].location.range.start.line == 1


async def test_a_forbidden_import_is_marked_at_its_exact_range_in_utf16(shared: KataClient, uri: str):
    # The emoji is one code point but two UTF-16 units: LSP columns must count the latter.
    source = ("# kata: fixture-scale\n"
              "label = '😀'; import os\n"
              "def scale(x, factor):\n"
              "    return x * factor\n")
    shared.open(uri, source)
    diagnostics = await shared.diagnostics_for(uri, 1)
    assert [(d.code, d.source) for d in diagnostics] == [("forbidden-module", "kata")]
    # `os` is at code points 20-22, UTF-16 units 21-23.
    assert diagnostics[0].range == types.Range(types.Position(1, 21), types.Position(1, 23))
    assert "os" in diagnostics[0].message
    report = (await shared.result_for(uri, 1))["report"]
    assert report["verdict"] == "forbidden"


async def test_a_syntax_error_is_marked_where_python_sees_it(shared: KataClient, uri: str):
    source = "# kata: fixture-scale\ndef scale(x, factor)\n    return x * factor\n"
    shared.open(uri, source)
    diagnostics = await shared.diagnostics_for(uri, 1)
    assert [d.code for d in diagnostics] == ["syntax-error"]
    assert diagnostics[0].range.start.line == 1


async def test_a_file_no_problem_claims_gets_one_hint_saying_how_to_claim_it(shared: KataClient, uri: str):
    notes = uri.replace(".py", ".md")
    shared.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=notes, language_id="markdown", version=1, text="# notes\n")))
    shared.open(uri, "def helper():\n    return 1\n")
    diagnostics = await shared.diagnostics_for(uri, 1)
    assert notes not in shared.published  # not Python: not a solution (it would have been handled first)
    assert len(diagnostics) == 1
    assert diagnostics[0].severity == types.DiagnosticSeverity.Information
    assert "# kata: <slug>" in diagnostics[0].message and "kata.toml" in diagnostics[0].message


async def test_a_header_naming_no_problem_is_a_warning_on_it_with_the_slug_meant(shared: KataClient, uri: str):
    """The learner asked for a problem (a typo in the header): not the quiet hint of an unclaimed file."""
    shared.open(uri, "import math\n# kata: adam-optimiser-memory-bytes\ndef adam_memory_bytes(n):\n    return 12 * n\n")
    [diagnostic] = await shared.diagnostics_for(uri, 1)
    assert diagnostic.severity == types.DiagnosticSeverity.Warning and diagnostic.range.start.line == 1
    assert "did you mean adam-optimizer-memory-bytes?" in diagnostic.message


async def test_a_bundled_problem_matches_by_file_name(shared: KataClient):
    uri = (shared.root / "adam_optimizer_memory_bytes.py").as_uri()
    shared.open(uri, "def adam_memory_bytes(num_params):\n    return num_params * 8\n")
    diagnostics = await shared.diagnostics_for(uri, 1)
    assert diagnostics and all(d.source == "kata" for d in diagnostics)
    assert (await shared.result_for(uri, 1))["report"]["problem"] == "adam-optimizer-memory-bytes"


async def test_a_crashing_solution_gets_a_message_and_the_server_carries_on(shared: KataClient, uri: str):
    crash = "# kata: fixture-scale\nimport ctypes\n\ndef scale(x, factor):\n    return ctypes.string_at(0)\n"
    shared.open(uri, crash)
    diagnostics = await shared.diagnostics_for(uri, 1)
    assert len(diagnostics) == 3 and all("segmentation fault" in d.message for d in diagnostics)
    assert (await shared.result_for(uri, 1))["report"]["verdict"] == "crashed"
    await shared.wait_for(lambda: any("crashed" in m.message and uri.rpartition("/")[2] in m.message
                                      for m in shared.messages))
    shared.edit_and_save(uri, CORRECT, 2)
    assert await shared.diagnostics_for(uri, 2) == []


async def test_a_problem_that_cannot_be_graded_gets_a_message_not_a_dead_server(shared: KataClient, uri: str):
    shared.open(uri, "# kata: fixture-broken-reference\ndef inverse(x):\n    return 1 / x\n")
    [diagnostic] = await shared.diagnostics_for(uri, 1)
    assert diagnostic.code == "not-graded" and diagnostic.severity == types.DiagnosticSeverity.Warning
    assert "the reference failed on case 'zero'" in diagnostic.message
    await shared.wait_for(lambda: any(m.type == types.MessageType.Error and "could not grade" in m.message
                                      for m in shared.messages))
    other = uri.replace(".py", "_other.py")
    shared.open(other, CORRECT)
    assert await shared.diagnostics_for(other, 1) == []


async def test_a_codestar_problem_grades_through_its_test_code(shared: KataClient, uri: str):
    shared.open(uri, "# kata: fixture-codestar-double\ndef double(x):\n    return x + 1\n")
    diagnostics = await shared.diagnostics_for(uri, 1)
    assert [d.code for d in diagnostics] == ["2"]  # 1 + 1 == 2 * 1: only the second case fails
    assert diagnostics[0].message.startswith("case 2 (half): ")
