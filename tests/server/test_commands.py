"""Server-side commands: what code lenses and editors call, with progress and cancellation."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcRequestCancelled

from .conftest import WRONG, KataClient
from .test_stale_runs import LOOP, _workers

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _progress_of(client: KataClient, title: str) -> list:
    return next(reports for reports in client.progress_reports.values()
                if reports and getattr(reports[0], "title", "") == title)


async def test_run_returns_the_report_publishes_and_reports_progress(shared: KataClient, uri: str):
    shared.open(uri, WRONG)
    await shared.result_for(uri, 1)
    report = await shared.command("kata.run", uri)
    assert (report["verdict"], report["passed"], report["total"]) == ("wrong_answer", 0, 3)
    assert report["cases"][0]["id"] == 1 and report["cases"][0]["line"] == 2
    name = uri.rpartition("/")[2]
    begin, *middle, end = _progress_of(shared, f"kata: grading {name}")
    assert begin.kind == "begin" and begin.cancellable
    assert [m.message for m in middle] == ["fixture-scale: grading in a sandboxed worker"]
    assert end.kind == "end" and end.message == "0/3 cases passed"


async def test_cancelling_the_progress_kills_the_run(shared: KataClient, uri: str):
    shared.open(uri, LOOP)
    command, token = await shared.run_in_flight(uri)
    shared.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token))
    with pytest.raises(JsonRpcRequestCancelled):
        await command
    await shared.wait_for(lambda: shared.progress_reports[token][-1].kind == "end")
    assert _workers(shared) == []


async def test_kata_cancel_kills_the_run_of_a_document(shared: KataClient, uri: str):
    shared.open(uri, LOOP)
    command, _ = await shared.run_in_flight(uri)
    assert await shared.command("kata.cancel", uri) is None
    with pytest.raises(JsonRpcRequestCancelled):
        await command
    assert _workers(shared) == []


async def test_run_on_a_file_no_problem_claims_says_how_to_claim_it(shared: KataClient, uri: str):
    shared.open(uri, "x = 1\n")
    with pytest.raises(JsonRpcInvalidParams, match="# kata: <slug>"):
        await shared.command("kata.run", uri)


async def test_bad_arguments_name_what_the_command_takes(shared: KataClient):
    with pytest.raises(JsonRpcInvalidParams, match=r"kata.run takes \[uri\]"):
        await shared.command("kata.run")
    with pytest.raises(JsonRpcInvalidParams, match=r"kata.startKata takes \[slug, folder\?\]"):
        await shared.command("kata.startKata", 1, 2, 3)


async def test_show_problem_by_slug_and_by_solution(shared: KataClient, uri: str):
    shown = len(shared.shown_documents)
    problem = await shared.command("kata.showProblem", "fixture-scale")
    assert problem["slug"] == "fixture-scale" and problem["title"] == "Scale a number"
    assert "Return `x * factor`." in problem["markdown"]
    assert problem["uri"].endswith("fixture-scale/README.md")
    assert shared.shown_documents[shown].uri == problem["uri"]

    shared.open(uri, WRONG)
    assert (await shared.command("kata.showProblem", uri))["slug"] == "fixture-scale"
    with pytest.raises(JsonRpcInvalidParams, match="no problem 'no-such-kata'"):
        await shared.command("kata.showProblem", "no-such-kata")


async def test_a_codestar_problem_statement_is_shown_as_markdown(shared: KataClient):
    problem = await shared.command("kata.showProblem", "adam-optimizer-memory-bytes")
    assert problem["uri"].endswith(".md")


async def test_start_kata_writes_the_starter_once_and_opens_it(shared: KataClient, tmp_path):
    result = await shared.command("kata.startKata", "fixture-scale", tmp_path.as_uri())
    starter = tmp_path / "fixture_scale.py"
    assert result["uri"] == starter.as_uri()
    assert starter.read_text().startswith("# kata: fixture-scale\n")
    assert shared.shown_documents[-1].uri == starter.as_uri()
    starter.write_text("# kata: fixture-scale\n# my work\n")
    await shared.command("kata.startKata", "fixture-scale", tmp_path.as_uri())
    assert starter.read_text() == "# kata: fixture-scale\n# my work\n"  # never overwritten


async def test_list_problems(shared: KataClient):
    problems = {p["slug"]: p for p in await shared.command("kata.listProblems")}
    assert problems["fixture-scale"] == {"slug": "fixture-scale", "title": "Scale a number", "difficulty": "Easy",
                                         "category": "Test", "tags": ["fixture"], "hasBenchmark": False}
    assert problems["quantized-adamw-8bit"]["hasBenchmark"] is True
