"""Server-side commands: what code lenses and editors call, with progress and cancellation."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcRequestCancelled
from pygls.uris import to_fs_path

from .conftest import WRONG, KataClient
from .test_stale_runs import LOOP

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _progress_of(client: KataClient, title: str) -> list:
    return next(reports for reports in client.progress_reports.values()
                if reports and getattr(reports[0], "title", "") == title)


async def test_run_returns_the_report_publishes_and_reports_progress(shared: KataClient, uri: str):
    shared.open(uri, WRONG)
    await shared.result_for(uri, 1)
    report = await shared.command("kata.run", uri)
    assert (report["verdict"], report["passed"], report["total"]) == ("wrong_answer", 0, 3)
    assert report["cases"][0]["id"] == 1 and report["cases"][0]["line"] == 3  # the return
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
    assert shared.solution_workers() == []


async def test_kata_cancel_kills_the_run_of_a_document(shared: KataClient, uri: str):
    shared.open(uri, LOOP)
    command, _ = await shared.run_in_flight(uri)
    assert await shared.command("kata.cancel", uri) is None
    with pytest.raises(JsonRpcRequestCancelled):
        await command
    assert shared.solution_workers() == []


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
    assert "Return `x * factor`: `x` multiplied by" in problem["markdown"]
    assert "把 `x` 乘以系数。" in problem["markdown"]  # rendered: the wrapped Chinese line joined
    assert problem["uri"].endswith("fixture-scale/README.md")
    assert shared.shown_documents[shown].uri == problem["uri"]

    shared.open(uri, WRONG)
    assert (await shared.command("kata.showProblem", uri))["slug"] == "fixture-scale"
    with pytest.raises(JsonRpcInvalidParams, match="no problem 'no-such-kata'"):
        await shared.command("kata.showProblem", "no-such-kata")


async def test_a_codestar_statement_is_shown_from_a_markdown_copy(shared: KataClient):
    problem = await shared.command("kata.showProblem", "fixture-codestar-double")
    assert problem["uri"].endswith("/fixture-codestar-double.md")
    assert shared.shown_documents[-1].uri == problem["uri"]
    assert Path(to_fs_path(problem["uri"])).read_text() == problem["markdown"] == "### 题目描述\nReturn `2 * x`.\n"


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
    scale = problems["fixture-scale"]
    assert {k: scale[k] for k in ("slug", "title", "difficulty", "category", "tags", "hasBenchmark", "device")} == {
        "slug": "fixture-scale", "title": "Scale a number", "difficulty": "Easy", "category": "Test",
        "tags": ["fixture"], "hasBenchmark": False, "device": "cpu"}
    assert problems["quantized-adamw-8bit"]["hasBenchmark"] is True
    # The same summary as `kata list --json` gives.
    assert scale["path"].endswith("fixture-scale") and scale["kind"] == "native" and scale["entry_point"]


async def test_benchmark_gates_on_correctness_and_titles_its_lens(shared: KataClient, uri: str):
    # No CUDA here: the gate runs through the Triton interpreter, and this starter fails it.
    starter = ("# kata: quantized-adamw-8bit\n"
               "def quantized_adamw_step(params, grads, m_code, m_absmax, v_code, v_absmax, qmap1, qmap2, step,\n"
               "                         lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, wd=0.01):\n"
               "    raise NotImplementedError\n")
    (shared.root / uri.rpartition("/")[2]).write_text(starter)  # benchmarked from disk, never opened
    result = await shared.command("kata.benchmark", uri)
    assert result["correct"] is False and result["line"] == 4
    assert "NotImplementedError" in result["gate_message"]
    assert shared.solution_workers() == []  # the rules' grading closed its workers with the benchmark
    # The command's result is the notification's, with the headline a client without progress shows (Neovim 0.7).
    assert shared.benchmarks[-1] == {"uri": uri, "result": {k: v for k, v in result.items() if k != "summary"}}
    assert result["summary"].startswith("quantized-adamw-8bit: rejected: correctness shape (7,)")
    lens = next(lens for lens in await shared.lenses(uri) if lens.command.command == "kata.benchmark")
    assert lens.command.title == ("kata: benchmark on CUDA (rejected: correctness shape (7,): NotImplementedError: "
                                  "the starter's …)")
    name = uri.rpartition("/")[2]
    assert _progress_of(shared, f"kata: benchmarking {name}")[-1].message == lens.command.title[len(
        "kata: benchmark on CUDA ("):-1]


async def test_benchmark_of_a_problem_without_one_says_so(shared: KataClient, uri: str):
    shared.open(uri, WRONG)
    with pytest.raises(JsonRpcInvalidParams, match="fixture-scale has no benchmark"):
        await shared.command("kata.benchmark", uri)
