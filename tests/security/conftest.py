"""The attack suite's shared pieces: a problem whose solutions may use os (so that they can really try),
and a way to grade a solution body as `scale(x, factor)`'s."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from infrakata.core.catalog.loading import Catalog, load_problem

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "problems"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def probe():
    catalog = Catalog.load([FIXTURES], include_bundled=False)
    assert not catalog.errors, catalog.errors
    return catalog.problems["sandbox-probe"]


@pytest.fixture(scope="session")
def patient_probe(tmp_path_factory):
    """The probe problem with 20 s a call: for attacks whose verdict a limit other than time decides, and
    that take time to mount (forking helpers, filling memory), so that a busy machine does not decide it."""
    folder = tmp_path_factory.mktemp("patient") / "sandbox-probe"
    shutil.copytree(FIXTURES / "sandbox-probe", folder)
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text().replace("time_limit = 1.0", "time_limit = 20.0"))
    return load_problem(folder)


def solution(body: str, prelude: str = "") -> str:
    """A solution of the probe problem that runs `body` (indented for you) and then answers right."""
    return (f"import os, signal, sys, time\n{textwrap.dedent(prelude)}\n"
            f"def scale(x, factor):\n{textwrap.indent(textwrap.dedent(body), '    ')}\n    return x * factor\n")


def attempt(runner, probe, body: str, prelude: str = ""):
    """Grade an attack; -> (the report, the first case's message, what the solution printed)."""
    report = runner.run(probe, solution(body, prelude), "/tmp/attack.py")
    return report, report.cases[0].message if report.cases else "", report.output
