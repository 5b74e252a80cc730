"""The soak, run small: graders killed at random moments leave nothing running and nothing holding
their output, and the verdicts of a few katas hold while every core is busy. The full run's figures
(200+ kills, every kata 10 times) are benchmarks/soak.py's, run by hand."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOAK = REPO / "benchmarks" / "soak.py"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the soak is a Linux child subreaper")


def test_killed_graders_leave_nothing_and_verdicts_hold_under_load(tmp_path):
    figures_file, log = tmp_path / "soak.json", tmp_path / "soak.log"
    # Nine kills: each grader (run, grade, serve) with each victim (grader SIGKILL, SIGINT, its zygote).
    # Its output goes to a file, not a pipe: a survivor holding a pipe would hang this test instead of failing it.
    with log.open("wb") as output_file:
        done = subprocess.run(
            [sys.executable, str(SOAK), "--kills", "9", "--rounds", "1", "--katas", "2", "--load", "2",
             "--seed", "1", "--json", str(figures_file)],
            stdin=subprocess.DEVNULL, stdout=output_file, stderr=subprocess.STDOUT, timeout=900, check=False)
    output = log.read_text(errors="replace")
    figures = json.loads(figures_file.read_text())
    assert figures["kills"] == 9, output
    assert figures["survivors"] == [], output
    assert figures["held_output"] == 0, output
    assert figures["gradings"] >= 2 and figures["flips"] == [], output
    assert done.returncode == 0, output
