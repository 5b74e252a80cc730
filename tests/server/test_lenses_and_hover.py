"""Code lenses over the entry point (titled with the last result) and hover on it."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .conftest import CORRECT, WRONG, KataClient

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_the_run_lens_carries_the_last_result_and_is_refreshed(shared: KataClient, uri: str):
    shared.open(uri, WRONG)
    await shared.result_for(uri, 1)
    refreshes = shared.lens_refreshes
    lenses = await shared.lenses(uri)
    titles = [lens.command.title for lens in lenses]
    assert titles == ["kata: run (0/3 cases passed)", "kata: statement"]
    run = lenses[0]
    assert run.range == types.Range(types.Position(1, 4), types.Position(1, 9))
    assert (run.command.command, list(run.command.arguments)) == ("kata.run", [uri])

    shared.edit_and_save(uri, CORRECT, 2)
    await shared.result_for(uri, 2)
    await shared.wait_for(lambda: shared.lens_refreshes > refreshes)
    assert (await shared.lenses(uri))[0].command.title == "kata: run (3/3 cases passed)"


async def test_a_problem_with_a_benchmark_gets_a_benchmark_lens(shared: KataClient):
    # Never opened: the server reads the file from disk, and lenses need no grading run.
    path = shared.root / "lens_adamw.py"
    path.write_text("# kata: quantized-adamw-8bit\n\ndef quantized_adamw_step(params, grads):\n    pass\n")
    lenses = await shared.lenses(path.as_uri())
    benchmark = [lens for lens in lenses if lens.command.command == "kata.benchmark"]
    assert [lens.command.title for lens in benchmark] == ["kata: benchmark on CUDA"]
    assert benchmark[0].range.start.line == 2


async def test_no_lenses_on_a_file_no_problem_claims(shared: KataClient, uri: str):
    shared.open(uri, "print('hello')\n")
    await shared.diagnostics_for(uri, 1)
    assert await shared.lenses(uri) == []


async def test_hover_on_the_entry_point_shows_limits_tolerances_and_the_last_result(shared: KataClient, uri: str):
    shared.open(uri, WRONG)
    await shared.result_for(uri, 1)
    hover = await shared.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(1, 6)))
    assert hover.contents.kind == types.MarkupKind.Markdown
    text = hover.contents.value
    assert "Scale a number" in text and "`fixture-scale`" in text
    assert "20 s per case" in text and "256 MB" in text
    assert "atol 0.0001" in text and "rtol 0.0001" in text
    assert "wrong answer, 0/3 cases passed" in text
    assert "| 1 two times three | failed |" in text
    assert "Return `x * factor`: `x` multiplied by\nthe factor." in text  # the statement
    assert "把 `x` 乘以系数。" in text  # its Chinese wrapped line joined without a space

    # The returning line's hover is the failing case's values (test_inline_values.py), not the problem.
    returning = await shared.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(2, 6)))
    assert "Scale a number" not in returning.contents.value
    elsewhere = await shared.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(0, 6)))
    assert elsewhere is None
