"""The learner's path in the editor: hints as code actions, the solution after acceptance (command
and hover), the next kata offered after an acceptance, progress recorded without a kata.toml.
Each test has a server of its own; most keep their progress in their workspace (a kata.toml)."""

from __future__ import annotations

import ast
import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import to_fs_path
from pytest_lsp import client_capabilities

from .conftest import CORRECT, FIXTURE_PROBLEMS, WRONG, KataClient
from .test_configuration import BARE

KATA = Path(sys.executable).with_name("kata")
WORKSPACE = {"files": {"kata.toml": ""}}


async def _actions(client: KataClient, uri: str) -> list[types.CodeAction]:
    answer = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), types.Range(types.Position(1, 0), types.Position(1, 0)),
        types.CodeActionContext(diagnostics=[]))) or []
    # lsprotocol's client-side converter reads any code action that carries a command as a bare
    # Command (its union hook only looks for a "command" key), stringifying the nested command.
    return [types.CodeAction(a.title, command=types.Command(**ast.literal_eval(a.command)))
            if isinstance(a, types.Command) and a.command.startswith("{") else a for a in answer]


async def _hover(client: KataClient, uri: str) -> str:
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(1, 6)))
    return hover.contents.value


@pytest.mark.kata(**WORKSPACE)
async def test_hints_are_code_actions_revealed_one_tier_at_a_time(client: KataClient):
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, WRONG)
    await client.result_for(uri, 1)
    [action] = await _actions(client, uri)
    assert action.title == "kata: show hint 1 of 2"
    result = await client.command(action.command.command, *action.command.arguments)
    assert [h["tier"] for h in result["hints"]] == [1]
    assert result["hints"][0]["text"] == "Multiplication is all it takes: no loop."
    await client.wait_for(lambda: any("hint 1/2: Multiplication is all it takes" in m.message
                                      for m in client.messages))
    assert [a.title for a in await _actions(client, uri)] == ["kata: show hint 2 of 2"]

    # The terminal shares the workspace's record: `kata hint` goes on with the second tier.
    done = await asyncio.to_thread(subprocess.run, [str(KATA), "--problems", str(FIXTURE_PROBLEMS), "hint",
                                   "fixture-scale"], capture_output=True, text=True, cwd=client.root, timeout=120,
                                   check=False)
    assert "hint 2/2" in done.stdout and "hint 1/2" not in done.stdout


@pytest.mark.kata(**WORKSPACE)
async def test_the_solution_unlocks_in_the_editor_once_accepted(client: KataClient):
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, WRONG)
    await client.result_for(uri, 1)
    locked = await client.command("kata.solution", uri)
    assert locked["unlocked"] is False and "best attempt passed 0/3" in locked["message"]
    assert "reference" not in locked
    assert "unlocks once the kata is accepted" in await _hover(client, uri)
    assert "kata: show the solution" not in [a.title for a in await _actions(client, uri)]

    client.edit_and_save(uri, CORRECT, 2)
    assert (await client.result_for(uri, 2))["report"]["verdict"] == "accepted"
    action = next(a for a in await _actions(client, uri) if a.title == "kata: show the solution")
    shown = len(client.shown_documents)
    solution = await client.command(action.command.command, *action.command.arguments)
    assert solution["unlocked"] is True and solution["shown"] is True
    assert "Scaling is one multiplication" in solution["editorial"]
    assert solution["reference"] == "def scale(x, factor):\n    return x * factor\n"
    assert client.shown_documents[shown].uri == solution["uri"]
    assert "return x * factor" in Path(to_fs_path(solution["uri"])).read_text()
    hover = await _hover(client, uri)
    assert "Scaling is one multiplication" in hover and "return x * factor" in hover


@pytest.mark.kata(**WORKSPACE)
async def test_an_acceptance_offers_the_next_kata_and_starts_it(client: KataClient):
    client.message_answer = "*"
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, CORRECT)
    await client.result_for(uri, 1)
    request = await client.wait_for(lambda: client.message_requests and client.message_requests[0])
    following = (await client.command("kata.next", uri))["slug"]
    assert request.message.startswith(f"kata: fixture-scale accepted. Next: {following} (")
    assert [a.title for a in request.actions] == [f"Start {following}"]
    starter = client.root / f"{following.replace('-', '_')}.py"
    await client.wait_for(lambda: client.shown_documents and client.shown_documents[-1].uri == starter.as_uri())
    assert starter.read_text().startswith(f"# kata: {following}\n")
    client.edit_and_save(uri, CORRECT + "\n", 2)  # accepted again: no second offer
    await client.result_for(uri, 2)
    assert len(client.message_requests) == 1


@pytest.mark.kata(options={"problemPaths": [str(FIXTURE_PROBLEMS)], "watchFiles": False}, capabilities=BARE,
                  **WORKSPACE)
async def test_a_client_without_message_requests_gets_the_next_kata_as_a_message(client: KataClient):
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, CORRECT)
    await client.result_for(uri, 1)
    message = await client.wait_for(lambda: next((m.message for m in client.messages if "accepted. Next:" in m.message),
                                                 None))
    assert "or `kata start " in message and client.message_requests == []


NEOVIM = {"capabilities": client_capabilities("neovim@0.7.0"), "client_name": "Neovim"}


@pytest.mark.kata(**NEOVIM, **WORKSPACE)
async def test_neovim_is_offered_the_next_kata_without_a_prompt_and_starts_it_on_request(client: KataClient):
    """Neovim's showMessageRequest takes over the editor until answered (it hung headless Neovim): a message
    instead, and the code action on the solved file starts the next kata."""
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, CORRECT)
    await client.result_for(uri, 1)
    message = await client.wait_for(lambda: next((m.message for m in client.messages if "accepted. Next:" in m.message),
                                                 None))
    following = (await client.command("kata.next", uri))["slug"]
    assert f'the code action "kata: start {following}"' in message and client.message_requests == []
    [start] = [a for a in await _actions(client, uri) if a.title == f"kata: start {following}"]
    await client.command(start.command.command, *start.command.arguments)
    starter = client.root / f"{following.replace('-', '_')}.py"
    assert starter.read_text().startswith(f"# kata: {following}\n")


@pytest.mark.kata(**NEOVIM, **WORKSPACE)
async def test_a_solved_kata_reopened_offers_nothing(client: KataClient):
    first, second = (client.root / "sol.py").as_uri(), (client.root / "again.py").as_uri()
    client.open(first, CORRECT)
    await client.result_for(first, 1)
    await client.wait_for(lambda: any("accepted. Next:" in m.message for m in client.messages))
    offers = sum("accepted. Next:" in m.message for m in client.messages)
    # A new session's offers are its own (offered_next): the store, not the session, says it was solved.
    client.open(second, CORRECT)
    await client.result_for(second, 1)
    await asyncio.sleep(0)  # the offer, were there one, goes out right after kata/result
    assert sum("accepted. Next:" in m.message for m in client.messages) == offers


MINE = {f"problems/fixture-mine/{name}": (FIXTURE_PROBLEMS / "fixture-scale" / name).read_text().replace(
    '"fixture-scale"', '"fixture-mine"') for name in ("problem.toml", "reference.py", "starter.py")}


# A problem no other test solves, so that the per-user store's record of it is this test's.
@pytest.mark.kata(options={"problemPaths": ["problems"], "watchFiles": False}, files=MINE)
async def test_the_server_records_progress_where_no_kata_toml_is(client: KataClient):
    uri = (client.root / "mine.py").as_uri()
    client.open(uri, CORRECT.replace("fixture-scale", "fixture-mine"))
    report = await client.result_for(uri, 1)
    assert report["report"]["problem"] == "fixture-mine" and report["report"]["verdict"] == "accepted"
    listed = await asyncio.to_thread(subprocess.run, [str(KATA), "--problems", str(client.root / "problems"), "list",
                                     "--json"], capture_output=True, text=True, cwd=client.root, timeout=120,
                                     check=False)
    mine = next(p for p in json.loads(listed.stdout) if p["slug"] == "fixture-mine")
    assert mine["progress"]["accepted"] is True
    assert not (client.root / ".kata").exists()
