"""`kata run --values`: the first failing case's values by line, as the editor shows them beside the
code; without the flag none are recorded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

KATA = Path(sys.executable).with_name("kata")
PROBLEMS = Path(__file__).parents[1] / "server" / "fixtures" / "problems"
TWO_RETURNS = (Path(__file__).parents[1] / "server" / "fixtures" / "solutions" / "two_returns.py").read_text()


def kata_run(path: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(KATA), "--problems", str(PROBLEMS), "run", str(path), *extra], capture_output=True,
                          text=True, timeout=240, env={**os.environ, "COLUMNS": "120"})  # wide: one value a line


def test_kata_run_values_prints_the_first_failing_cases_values_by_line(tmp_path: Path):
    solution = tmp_path / "sol.py"
    solution.write_text(TWO_RETURNS)
    done = kata_run(solution, "--values")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("values of case 2 (a tenth), by line:")
    assert [line.strip() for line in lines[start + 1:start + 5]] == [
        "2  x = 1.0", "2  factor = 0.1", "5  product = 0.1", "6  out = 1.1, expected 0.1"]
    assert "line 6: out: expected 0.1, got 1.1" in done.stdout  # the case's line: the return that gave it


def test_kata_run_records_values_only_when_asked(tmp_path: Path):
    solution = tmp_path / "sol.py"
    solution.write_text(TWO_RETURNS)
    plain = json.loads(kata_run(solution, "--json").stdout)
    asked = json.loads(kata_run(solution, "--json", "--values").stdout)
    assert [c["values"] for c in plain["cases"]] == [[], [], []]
    assert [len(c["values"]) for c in asked["cases"]] == [0, 4, 0]  # the first failing case's only
    assert asked["cases"][1]["values"][3] == {
        "line": 6, "kind": "output", "name": "return", "label": "out = 1.1, expected 0.1",
        "detail": "out: expected 0.1, got 1.1, |diff| 1.0e+00 > atol 1e-04 + rtol 1e-04 * |expected|\n\n"
                  "actual:\n1.1\n\nexpected:\n0.1"}
    assert [c["line"] for c in plain["cases"]] == [None, 6, 6]
