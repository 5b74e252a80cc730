"""Solution files changed outside the editor are graded too (watchdog); editor saves once."""

from __future__ import annotations

import pytest

from .conftest import CORRECT, FIXTURE_PROBLEMS, WRONG, KataClient


@pytest.mark.kata(options={"problemPaths": [str(FIXTURE_PROBLEMS)]})  # watchFiles defaults to true
async def test_files_changed_on_disk_are_graded_and_editor_saves_only_once(client: KataClient):
    # Another program writes a solution nobody has open: graded, unversioned.
    outside = client.root / "outside.py"
    outside.write_text(WRONG)
    assert len(await client.diagnostics_for(outside.as_uri(), None)) == 3
    outside.write_text(CORRECT)
    await client.wait_for(lambda: not client.published[outside.as_uri()][-1].diagnostics)

    # Not every Python file is a solution: an unmatched one is ignored, not flagged.
    (client.root / "helper.py").write_text("def helper():\n    return 1\n")

    # The editor saves: the file is graded from the didSave, and the watchdog echo is skipped.
    edited = client.root / "edited.py"
    client.open(edited.as_uri(), CORRECT)
    await client.result_for(edited.as_uri(), 1)
    edited.write_text(WRONG)
    client.edit_and_save(edited.as_uri(), WRONG, 2)
    await client.result_for(edited.as_uri(), 2)
    # A later outside change to another file: its event comes after the editor's echo.
    outside.write_text(WRONG)
    await client.wait_for(lambda: len(client.published[outside.as_uri()][-1].diagnostics) == 3)
    assert [r["version"] for r in client.results if r["uri"] == edited.as_uri()] == [1, 2]
    assert helper_not_graded(client)


def helper_not_graded(client: KataClient) -> bool:
    return (client.root / "helper.py").as_uri() not in client.published
