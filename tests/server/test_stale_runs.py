"""A newer save kills the run in flight; the last content wins; no worker is left behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from infrakata.core.sandbox.protocol import SPARE_NAME
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from .conftest import CORRECT, WRONG, KataClient

pytestmark = pytest.mark.asyncio(loop_scope="session")

# Loops until killed: the fixture's time limit is 20 s, so a run that ends sooner was killed.
LOOP = "# kata: fixture-scale\ndef scale(x, factor):\n    while True:\n        pass\n"


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces, so split after its closing parenthesis.
        if int(stat.rpartition(")")[2].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def _killed_or_gone(pid: int) -> bool:
    """Exited (a zombie, or gone), or with a SIGKILL pending: it runs no more of the solution."""
    try:
        status = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                      if ":\t" in line)
    except OSError:
        return True
    pending = int(status["SigPnd"], 16) | int(status["ShdPnd"], 16)
    return status["State"][0] in "ZX" or bool(pending & (1 << (9 - 1)))


def _workers(client: KataClient) -> list[int]:
    """Solution processes still running: the live children of the server's zygotes (the torch-free one too,
    once a run needed it), but for the workers they keep started ahead of need (named kata-spare until they
    are given a run)."""
    zygotes = [pid for pid in _children(client._server.pid)
               if b"infrakata.core.sandbox.zygote" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    assert zygotes
    return [pid for zygote in zygotes for pid in _children(zygote)
            if not _killed_or_gone(pid) and _name(pid) != SPARE_NAME.decode()]


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


async def test_rapid_saves_end_with_the_diagnostics_of_the_last_content(shared: KataClient, uri: str):
    shared.open(uri, CORRECT)
    await shared.diagnostics_for(uri, 1)
    for version, text in ((2, LOOP), (3, WRONG), (4, LOOP), (5, CORRECT)):
        shared.edit_and_save(uri, text, version)
    assert await shared.diagnostics_for(uri, 5) == []
    versions = [p.version for p in shared.published[uri]]
    assert versions == sorted(versions)  # never back to an older version
    assert not {2, 4} & {r["version"] for r in shared.results if r["uri"] == uri}  # the loops were killed
    assert _workers(shared) == []


async def test_a_save_kills_the_run_a_command_started(shared: KataClient, uri: str):
    shared.open(uri, LOOP)
    command, _ = await shared.run_in_flight(uri)
    shared.edit_and_save(uri, CORRECT, 2)
    with pytest.raises(JsonRpcRequestCancelled):
        await command
    assert await shared.diagnostics_for(uri, 2) == []
    assert _workers(shared) == []


async def test_a_reopened_document_counts_its_versions_afresh(shared: KataClient, uri: str):
    shared.open(uri, CORRECT)
    shared.edit_and_save(uri, CORRECT.replace("factor\n", "factor  # again\n"), 7)
    assert await shared.diagnostics_for(uri, 7) == []
    shared.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    reopened = len(shared.published[uri])
    shared.open(uri, WRONG, version=1)
    assert len(await shared.diagnostics_for(uri, 1, after=reopened)) == 3
