"""The diagnostics of a run, in the order of what they teach: the case whose values are shown first, the other
visible ones, a hidden case's wrong answer last, as a warning, on the entry point's `def` (it only says that it
failed too, and Neovim shows one diagnostic a line: the line that returned shows a case that teaches)."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .conftest import FIXTURE_PROBLEMS, KataClient

SCALE = FIXTURE_PROBLEMS / "fixture-scale"
# fixture-scale with its first case hidden: the case a learner sees fail first says nothing.
HIDDEN_FIRST = {"problems/fixture-hidden/problem.toml": (SCALE / "problem.toml").read_text().replace(
                    '"fixture-scale"', '"fixture-hidden"').replace(
                    'name = "two times three"\n', 'name = "two times three"\nhidden = true\n'),
                **{f"problems/fixture-hidden/{name}": (SCALE / name).read_text() for name in ("reference.py",
                                                                                            "starter.py",
                                                                                            "README.md")}}
WRONG = "# kata: fixture-hidden\ndef scale(x, factor):\n    return x * factor + 1\n"


@pytest.mark.kata(options={"problemPaths": ["problems"], "watchFiles": False}, files=HIDDEN_FIRST)
async def test_the_case_with_values_comes_first_and_the_hidden_one_last(client: KataClient):
    uri = (client.root / "sol.py").as_uri()
    client.open(uri, WRONG)
    diagnostics = await client.diagnostics_for(uri, 1)
    assert [d.code for d in diagnostics] == ["2", "3", "1"]
    assert "expected 0.1, got 1.1" in diagnostics[0].message  # case 2's values are the ones recorded
    assert [d.severity for d in diagnostics] == [types.DiagnosticSeverity.Error] * 2 + [
        types.DiagnosticSeverity.Warning]
    assert "hidden" in diagnostics[-1].message
    # Said on the `def` (it shows nothing of the line that returned), the others on that line.
    assert [d.range.start.line for d in diagnostics] == [2, 2, 1]
