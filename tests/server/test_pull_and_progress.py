"""Diagnostics pulled by a client that can pull (VS Code), pushed to one that cannot (Neovim), never both; work-done
progress around a grading that takes more than a moment, and none for a quick one or where it is refused."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from .conftest import CORRECT, WRONG, KataClient

# Correct, but a little over a second to grade (three cases): progress shows.
SLOW = "# kata: fixture-scale\nimport time\n\ndef scale(x, factor):\n    time.sleep(0.4)\n    return x * factor\n"
SLOW_WRONG = SLOW.replace("return x * factor", "return x * factor + 1")


def _grading_progress(client: KataClient, name: str) -> list[list]:
    """The reports of each progress a grading on save showed for the file `name`."""
    return [reports for reports in client.progress_reports.values() if reports and reports[0].title == f"kata: {name}"]


async def test_a_client_that_can_pull_pulls_and_is_never_pushed(client: KataClient):
    provider = client.server_capabilities.diagnostic_provider
    assert isinstance(provider, types.DiagnosticOptions)
    assert provider.identifier == "kata" and provider.workspace_diagnostics and not provider.inter_file_dependencies
    uri = (client.root / "sol.py").as_uri()
    # Nothing graded yet: an empty report.
    empty = await client.pull(uri)
    assert isinstance(empty, types.RelatedFullDocumentDiagnosticReport) and not empty.items

    client.open(uri, CORRECT)
    await client.result_for(uri, 1)  # the refresh went out when the diagnostics were ready, before this
    right = await client.pull(uri)
    assert isinstance(right, types.RelatedFullDocumentDiagnosticReport) and not right.items

    client.edit_and_save(uri, WRONG, 2)
    await client.result_for(uri, 2)
    wrong = await client.pull(uri, right.result_id)
    assert isinstance(wrong, types.RelatedFullDocumentDiagnosticReport) and wrong.result_id != right.result_id
    assert [d.code for d in wrong.items] == ["1", "2", "3"]
    assert "expected 6" in wrong.items[0].message and wrong.items[0].range.start.line == 2
    assert wrong.items[0].related_information  # the pull capability's relatedInformation, not publish's
    # The same again: unchanged.
    assert await client.pull(uri, wrong.result_id) == types.RelatedUnchangedDocumentDiagnosticReport(wrong.result_id)

    client.edit_and_save(uri, CORRECT, 3)
    await client.result_for(uri, 3)
    fixed = await client.pull(uri, wrong.result_id)
    assert isinstance(fixed, types.RelatedFullDocumentDiagnosticReport) and not fixed.items

    # The workspace pull (what the refresh made the client do) saw each version, in order.
    assert await client.diagnostics_for(uri, 3) == []
    assert [(p.version, len(p.diagnostics)) for p in client.published[uri]] == [(1, 0), (2, 3), (3, 0)]
    assert client.diagnostic_refresh_count >= 3 and client.pushed == 0 and client.pull_errors == []


async def test_a_workspace_pull_with_nothing_new_waits_for_a_change(client: KataClient):
    """VS Code asks for the workspace's diagnostics again as soon as it has an answer: with nothing new the request
    stays open (no answer every two seconds, all day), and is answered by the next grading."""
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, WRONG)
    assert len(await client.diagnostics_for(uri, 1)) == 3
    known = [types.PreviousResultId(u, value) for u, value in client.result_ids.items()]
    waiting = asyncio.ensure_future(client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(known)))
    await asyncio.sleep(1.0)
    assert not waiting.done()
    client.edit_and_save(uri, CORRECT, 2)
    report = await asyncio.wait_for(waiting, 60)
    new = [(item.uri, item.version, list(item.items)) for item in report.items
           if isinstance(item, types.WorkspaceFullDocumentDiagnosticReport)]
    assert new == [(uri, 2, [])]


@pytest.mark.kata(capabilities=client_capabilities("neovim@v0.7.0"), client_name="Neovim")
async def test_neovim_0_7_cannot_pull_and_is_pushed(client: KataClient):
    """Offered no pull and pushed; a pull it makes anyway (a client that asks without saying it can) is answered
    with the diagnostics it was pushed, never refused."""
    assert client.server_capabilities.diagnostic_provider is None
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, WRONG)
    assert [d.code for d in await client.diagnostics_for(uri, 1)] == ["1", "2", "3"]
    assert client.pushed == 1 and client.diagnostic_refresh_count == 0
    pulled = await client.pull(uri)
    assert isinstance(pulled, types.RelatedFullDocumentDiagnosticReport)
    assert [d.code for d in pulled.items] == ["1", "2", "3"] and client.pushed == 1


# Neovim 0.10 pulls (textDocument.diagnostic) but cannot be told to pull again after a grading: pushed, and offered
# no pull, so that it does not get both.
@pytest.mark.kata(capabilities=client_capabilities("neovim@v0.10.0"), client_name="Neovim")
async def test_a_client_that_pulls_without_refresh_is_pushed(client: KataClient):
    assert client.server_capabilities.diagnostic_provider is None
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, WRONG)
    assert len(await client.diagnostics_for(uri, 1)) == 3
    client.edit_and_save(uri, CORRECT, 2)
    assert await client.diagnostics_for(uri, 2) == []
    assert client.pushed == 2 and client.diagnostic_refresh_count == 0


async def test_a_slow_grading_shows_progress_and_a_quick_one_none(client: KataClient):
    uri = (client.root / "slow.py").as_uri()
    client.open(uri, SLOW)
    assert (await client.result_for(uri, 1))["report"]["verdict"] == "accepted"
    [reports] = await client.wait_for(lambda: (found := _grading_progress(client, "slow.py"))
                                      and found[0][-1].kind == "end" and found)
    begin, report, end = reports
    assert (begin.kind, begin.cancellable) == ("begin", True)
    assert report.message == "fixture-scale: grading in a sandboxed worker"
    assert end.message == "3/3 cases passed"

    client.edit_and_save(uri, CORRECT, 2)
    await client.result_for(uri, 2)
    # Its token would have been asked for before the grading ended, so before its result: a quick grading shows
    # none.
    assert len(client.progress_reports) == 1

    # A command's grading reports its own progress (one token), not this one as well.
    client.edit_and_save(uri, SLOW, 3)
    await client.result_for(uri, 3)
    await client.wait_for(lambda: len(_grading_progress(client, "slow.py")) == 2
                          and _grading_progress(client, "slow.py")[1][-1].kind == "end")
    await client.command("kata.run", uri)
    assert len(client.progress_reports) == 3
    assert [reports[0].title for reports in client.progress_reports.values()] == ["kata: slow.py"] * 2 + [
        "kata: grading slow.py"]


async def test_a_client_that_refuses_progress_still_gets_its_diagnostics(client: KataClient):
    client.refuse_progress = True
    uri = (client.root / "slow.py").as_uri()
    client.open(uri, SLOW_WRONG)
    assert len(await client.diagnostics_for(uri, 1)) == 3
    assert (await client.result_for(uri, 1))["report"]["verdict"] == "wrong_answer"
    assert client.refused_progress == 1 and client.progress_reports == {}
