"""Public answers: a report shows what a case expected (a learner needs it), so a lookup table copied
from a first run would pass. For leaderboards, `kata grade --hidden` keeps expected values (and the
differences that give them away) out of every output; a problem can also mark cases hidden."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

from infrakata.core.catalog.loading import load_problem

from .conftest import FIXTURES

WRONG = "def scale(x, factor):\n    return x * factor + 0.125\n"


def test_kata_grade_hidden_keeps_expected_values_out(tmp_path):
    attempt = tmp_path / "scale.py"
    attempt.write_text("# kata: sandbox-probe\n" + WRONG)
    out, junit = tmp_path / "results.jsonl", tmp_path / "junit.xml"
    open_run = subprocess.run([sys.executable, "-m", "infrakata.core.cli", "--problems", str(FIXTURES), "run",
                               str(attempt), "--json"], capture_output=True, text=True, timeout=120)
    shown = json.loads(open_run.stdout)["cases"][0]
    assert shown["expected"] is not None and "expected" in shown["message"]  # a learner sees it
    done = subprocess.run([sys.executable, "-m", "infrakata.core.cli", "--problems", str(FIXTURES), "grade",
                           str(attempt), "--hidden", "--out", str(out), "--junit", str(junit)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    row = json.loads(out.read_text())
    written = out.read_text() + junit.read_text()
    assert shown["expected"] not in written and "expected " not in written.replace("what it expects", "")
    for case in row["cases"]:
        assert case["hidden"] and case["expected"] is None and case["max_abs_diff"] is None
    ET.parse(junit)


def test_a_problems_hidden_cases_never_show_what_they_expect(runner, tmp_path):
    folder = tmp_path / "sandbox-probe"
    shutil.copytree(FIXTURES / "sandbox-probe", folder)
    cases = folder / "cases.py"
    hidden = '{"name": "square", "hidden": True, "args"'
    cases.write_text(cases.read_text().replace('{"name": "square", "args"', hidden))
    report = runner.run(load_problem(folder), WRONG, "/tmp/scale.py")
    small, square = report.cases[0], report.cases[1]
    assert small.expected is not None and not small.hidden
    assert square.hidden and square.status == "failed" and square.expected is None and square.max_abs_diff is None
    assert "expected" not in square.message.replace("what it expects", "")
