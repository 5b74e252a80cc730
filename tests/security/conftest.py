"""The attack suite's shared pieces: a problem whose solutions may use os (so that they can really try),
and a way to grade a solution body as `scale(x, factor)`'s."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from infrakata.core.catalog import Catalog

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "problems"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def probe():
    catalog = Catalog.load([FIXTURES], include_bundled=False)
    assert not catalog.errors, catalog.errors
    return catalog.problems["sandbox-probe"]


def solution(body: str, prelude: str = "") -> str:
    """A solution of the probe problem that runs `body` (indented for you) and then answers right."""
    return (f"import os, signal, sys, time\n{textwrap.dedent(prelude)}\n"
            f"def scale(x, factor):\n{textwrap.indent(textwrap.dedent(body), '    ')}\n    return x * factor\n")


def attempt(runner, probe, body: str, prelude: str = ""):
    """Grade an attack; -> (the report, the first case's message, what the solution printed)."""
    report = runner.run(probe, solution(body, prelude), "/tmp/attack.py")
    return report, report.cases[0].message if report.cases else "", report.output
