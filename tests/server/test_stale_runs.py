"""A newer save kills the run in flight; the last content wins; no worker is left behind."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from .conftest import CORRECT, WRONG, KataClient

pytestmark = pytest.mark.asyncio(loop_scope="session")

# Loops until killed: the fixture's time limit is 20 s, so a run that ends sooner was killed.
LOOP = "# kata: fixture-scale\ndef scale(x, factor):\n    while True:\n        pass\n"


async def test_rapid_saves_end_with_the_diagnostics_of_the_last_content(shared: KataClient, uri: str):
    shared.open(uri, CORRECT)
    await shared.diagnostics_for(uri, 1)
    for version, text in ((2, LOOP), (3, WRONG), (4, LOOP), (5, CORRECT)):
        shared.edit_and_save(uri, text, version)
    assert await shared.diagnostics_for(uri, 5) == []
    versions = [p.version for p in shared.published[uri]]
    assert versions == sorted(versions)  # never back to an older version
    assert not {2, 4} & {r["version"] for r in shared.results if r["uri"] == uri}  # the loops were killed
    assert shared.solution_workers() == []


async def test_a_save_kills_the_run_a_command_started(shared: KataClient, uri: str):
    shared.open(uri, LOOP)
    command, _ = await shared.run_in_flight(uri)
    shared.edit_and_save(uri, CORRECT, 2)
    with pytest.raises(JsonRpcRequestCancelled):
        await command
    assert await shared.diagnostics_for(uri, 2) == []
    assert shared.solution_workers() == []


async def test_a_reopened_document_counts_its_versions_afresh(shared: KataClient, uri: str):
    shared.open(uri, CORRECT)
    shared.edit_and_save(uri, CORRECT.replace("factor\n", "factor  # again\n"), 7)
    assert await shared.diagnostics_for(uri, 7) == []
    shared.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    reopened = len(shared.published[uri])
    shared.open(uri, WRONG, version=1)
    assert len(await shared.diagnostics_for(uri, 1, after=reopened)) == 3
