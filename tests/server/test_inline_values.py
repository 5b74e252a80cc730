"""The wrong value on the line that produced it, and the first failing case's values inline: the
diagnostic on the returning line, inlay hints (positions and labels), the hover's whole values,
cleared on edit, off by setting."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from .conftest import CORRECT, DEFAULT_OPTIONS, TWO_RETURNS, KataClient

pytestmark = pytest.mark.asyncio(loop_scope="session")



def _end(text: str, line: int) -> types.Position:
    """The end of a 0-based line's text (ASCII here: UTF-16 units are characters)."""
    return types.Position(line, len(text.splitlines()[line]))


async def test_a_wrong_answer_shows_on_the_return_that_gave_it(shared: KataClient, uri: str):
    shared.open(uri, TWO_RETURNS)
    diagnostics = await shared.diagnostics_for(uri, 1)
    assert [d.code for d in diagnostics] == ["2", "3"]
    for diagnostic in diagnostics:  # the second return, not the `def` nor the first return
        assert diagnostic.range == types.Range(types.Position(5, 4), types.Position(5, 22))
        # ... and the entry point is related information, for the editor's "while grading" link.
        assert diagnostic.related_information[0].location.range.start.line == 1
    assert "expected 0.1, got 1.1" in diagnostics[0].message
    report = (await shared.result_for(uri, 1))["report"]
    assert [c["line"] for c in report["cases"]] == [None, 6, 6]
    assert report["device"] == "cpu"  # the editor's result names where it was graded


async def test_the_first_failing_case_shows_its_values_beside_the_code(shared: KataClient, uri: str):
    shared.open(uri, TWO_RETURNS)
    await shared.diagnostics_for(uri, 1)
    hints = await shared.inlay_hints(uri)
    shown = [(h.position, h.label) for h in hints]
    assert shown == [
        (_end(TWO_RETURNS, 1), "case 2 (a tenth):"),
        (_end(TWO_RETURNS, 1), "x = 1.0"),
        (_end(TWO_RETURNS, 1), "factor = 0.1"),
        (_end(TWO_RETURNS, 4), "product = 0.1"),  # a local at its assignment
        (_end(TWO_RETURNS, 5), "out = 1.1, expected 0.1"),  # the output beside the expected one
    ]
    assert all(h.padding_left for h in hints)
    assert [h.kind for h in hints[1:3]] == [types.InlayHintKind.Parameter] * 2
    # The report carries them too (kata/result: Neovim's fallback, `kata run --json --values`).
    values = (await shared.result_for(uri, 1))["report"]["cases"][1]["values"]
    assert [(v["line"], v["kind"], v["name"], v["label"]) for v in values] == [
        (2, "argument", "x", "1.0"), (2, "argument", "factor", "0.1"), (5, "local", "product", "0.1"),
        (6, "output", "return", "out = 1.1, expected 0.1")]


async def test_a_hover_on_an_annotated_line_shows_the_whole_values(shared: KataClient, uri: str):
    shared.open(uri, TWO_RETURNS)
    await shared.diagnostics_for(uri, 1)
    hover = await shared.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(5, 8)))
    text = hover.contents.value
    assert text.startswith("**case 2 (a tenth)**")
    assert "expected 0.1, got 1.1" in text and "actual:\n1.1" in text and "expected:\n0.1" in text
    assert hover.range == types.Range(types.Position(5, 4), types.Position(5, 22))
    # On the `def`: the arguments, then the problem as before.
    hover = await shared.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(1, 0)))
    assert "`x` (argument):\n```text\n1.0\n```" in hover.contents.value
    assert "### Scale a number" in hover.contents.value
    # A line with no value has no hover.
    assert await shared.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(2, 4))) is None


async def test_an_edit_clears_the_values_until_the_next_grading(shared: KataClient, uri: str):
    shared.open(uri, TWO_RETURNS)
    await shared.diagnostics_for(uri, 1)
    assert await shared.inlay_hints(uri)
    edited = TWO_RETURNS.replace("product + 1", "product + 2")
    shared.change(uri, edited, 2)
    assert await shared.inlay_hints(uri) == []
    shared.save(uri)
    await shared.diagnostics_for(uri, 2)
    assert (await shared.inlay_hints(uri))[-1].label == "out = 2.1, expected 0.1"
    shared.edit_and_save(uri, CORRECT, 3)  # accepted: nothing failed, nothing to show
    assert await shared.diagnostics_for(uri, 3) == []
    assert await shared.inlay_hints(uri) == []


NEOVIM = client_capabilities("neovim")  # declares inlay hints and their refresh


@pytest.mark.kata(options={**DEFAULT_OPTIONS, "inlineValues": False}, capabilities=NEOVIM)
@pytest.mark.asyncio(loop_scope="function")
async def test_the_setting_turns_them_off_and_on(client: KataClient):
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, TWO_RETURNS)
    assert len(await client.diagnostics_for(uri, 1)) == 2  # graded as before, on the returning line
    assert (await client.result_for(uri, 1))["report"]["cases"][1]["values"] == []
    assert await client.inlay_hints(uri) == []
    refreshes = client.inlay_hint_refreshes
    # Turned on: the open document is graded again, and the client is asked to fetch the hints.
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"infrakata": {**DEFAULT_OPTIONS, "inlineValues": True}}))
    await client.wait_for(lambda: len(client.results) == 2 and client.inlay_hint_refreshes > refreshes + 1)
    assert [h.label for h in await client.inlay_hints(uri)][-1] == "out = 1.1, expected 0.1"


@pytest.mark.kata(files={"kata.toml": f'problems = ["{DEFAULT_OPTIONS["problemPaths"][0]}"]\ninline_values = false\n'},
                  options={"watchFiles": False})
@pytest.mark.asyncio(loop_scope="function")
async def test_kata_toml_turns_them_off(client: KataClient):
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, TWO_RETURNS)
    assert len(await client.diagnostics_for(uri, 1)) == 2
    assert (await client.result_for(uri, 1))["report"]["cases"][1]["values"] == []
    assert await client.inlay_hints(uri) == []
