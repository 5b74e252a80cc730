"""Settings from initializationOptions, didChangeConfiguration and kata.toml; bad values and
broken problems get a message, the defaults apply, and the server keeps serving."""

from __future__ import annotations

import pytest
from infrakata.core.progress import store
from lsprotocol import types

from .conftest import CORRECT, FIXTURE_PROBLEMS, FIXTURES, WRONG, KataClient


def _warnings(client: KataClient) -> list[str]:
    return [m.message for m in client.messages if m.type == types.MessageType.Warning]


@pytest.mark.kata(options={"problemPaths": [str(FIXTURE_PROBLEMS), str(FIXTURES / "broken")],
                           "gradeOn": "sometimes", "debounceMs": -5, "watchFiles": False})
async def test_bad_settings_and_a_broken_problem_get_messages_and_the_server_keeps_grading(client: KataClient):
    warnings = await client.wait_for(lambda: len(_warnings(client)) >= 3 and _warnings(client))
    assert any("'gradeOn' must be" in w and "'save'" in w for w in warnings)
    assert any("'debounceMs' must be" in w for w in warnings)
    assert any("broken-limits/problem.toml:5" in w and "time_limit" in w for w in warnings)

    uri = (client.root / "sol.py").as_uri()
    client.open(uri, WRONG)
    assert len(await client.diagnostics_for(uri, 1)) == 3
    # gradeOn fell back to "save": an edit alone grades nothing, the save grades the latest text.
    client.change(uri, WRONG.replace("+ 1", "+ 2"), 2)
    client.change(uri, CORRECT, 3)
    client.save(uri)
    assert await client.diagnostics_for(uri, 3) == []
    await client.result_for(uri, 3)
    assert [r["version"] for r in client.results] == [1, 3]


@pytest.mark.kata(options={"problemPaths": [str(FIXTURE_PROBLEMS)], "watchFiles": False})
async def test_grade_on_type_after_a_pushed_configuration_change(client: KataClient):
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, CORRECT)
    await client.diagnostics_for(uri, 1)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"infrakata": {"problemPaths": [str(FIXTURE_PROBLEMS)], "watchFiles": False,
                                "gradeOn": "type", "debounceMs": 10}}))
    for version in range(2, 6):
        client.change(uri, WRONG if version % 2 else CORRECT.replace("factor\n", f"factor  # v{version}\n"), version)
    assert len(await client.diagnostics_for(uri, 5)) == 3
    versions = [p.version for p in client.published[uri]]
    assert versions == sorted(versions)


@pytest.mark.kata(options={"watchFiles": False})
async def test_settings_are_pulled_when_the_client_pushes_none_and_open_files_regraded(client: KataClient):
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, WRONG)
    [unmatched] = await client.diagnostics_for(uri, 1)
    assert "no problem 'fixture-scale'" in unmatched.message

    client.set_configuration({"problemPaths": [str(FIXTURE_PROBLEMS)], "watchFiles": False}, section="infrakata")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await client.wait_for(lambda: len(client.published[uri][-1].diagnostics) == 3)
    assert client.published[uri][-1].version == 1


@pytest.mark.kata(options={}, files={
    "kata.toml": f'problems = ["{FIXTURE_PROBLEMS}"]\nwatch_files = false\ngrade_on = "never"\n\n'
                 '[files]\n"mine/*.py" = "fixture-scale"\n'})
async def test_kata_toml_supplies_problems_and_file_mappings(client: KataClient):
    warnings = await client.wait_for(lambda: _warnings(client))
    assert "kata.toml" in warnings[0] and "grade_on" in warnings[0]
    uri = (client.root / "mine" / "attempt.py").as_uri()
    client.open(uri, WRONG.removeprefix("# kata: fixture-scale\n"))
    assert [d.code for d in await client.diagnostics_for(uri, 1)] == ["1", "2", "3"]
    await client.result_for(uri, 1)
    assert store.summary(client.root)[0]["problem"] == "fixture-scale"  # kept where kata.toml is


# A client that declares none of the optional features the server uses (a non-empty set, so that
# pytest-lsp checks every request against it): no progress, no lens refresh, no related
# information, plain-text hover.
BARE = types.ClientCapabilities(
    window=types.WindowClientCapabilities(work_done_progress=False),
    text_document=types.TextDocumentClientCapabilities(
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.PlainText])))


@pytest.mark.kata(options={"problemPaths": [str(FIXTURE_PROBLEMS)], "watchFiles": False}, capabilities=BARE)
async def test_a_client_gets_only_what_it_declared(client: KataClient):
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, WRONG)
    diagnostics = await client.diagnostics_for(uri, 1)
    assert all(d.related_information is None for d in diagnostics)
    report = await client.command("kata.run", uri)
    assert report["verdict"] == "wrong_answer"
    assert (client.progress_reports, client.lens_refreshes) == ({}, 0)
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(1, 6)))
    assert hover.contents.kind == types.MarkupKind.PlainText
    await client.command("kata.showProblem", "fixture-scale")
    assert client.shown_documents == []
