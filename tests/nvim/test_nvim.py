"""Neovim (Debian's 0.7.2 in CI) as a real client: open a solution, save, see the kata diagnostics
and code lenses, run a lens. The editor is driven by kata.lua; skipped where nvim is missing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
PROBLEMS = HERE.parent / "server" / "fixtures" / "problems"
CORRECT = "# kata: fixture-scale\ndef scale(x, factor):\n    return x * factor\n"
WRONG = "# kata: fixture-scale\ndef scale(x, factor):\n    return x * factor + 1\n"

pytestmark = pytest.mark.skipif(shutil.which("nvim") is None, reason="nvim is not installed")


def test_neovim_shows_kata_diagnostics_and_lenses_after_a_save(tmp_path: Path):
    solution = tmp_path / "sol.py"
    solution.write_text(CORRECT)
    out = tmp_path / "out.json"
    env = {**os.environ, "KATA_PYTHON": sys.executable, "KATA_FILE": str(solution), "KATA_WRONG": WRONG,
           "KATA_LENS": "kata: run (0/3 cases passed)",
           "KATA_PROBLEMS": str(PROBLEMS), "KATA_OUT": str(out), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data")}
    subprocess.run(["nvim", "--headless", "--clean", "-c", f"luafile {HERE / 'kata.lua'}"], env=env,
                   stdin=subprocess.DEVNULL, timeout=120, check=True)
    result = json.loads(out.read_text())
    assert "error" not in result, result.get("error")
    assert solution.read_text() == WRONG  # Neovim really saved it
    diagnostics = sorted(result["diagnostics"], key=lambda d: d["code"])
    assert [(d["lnum"], d["col"], d["source"], d["code"]) for d in diagnostics] == [
        (1, 4, "kata", "1"), (1, 4, "kata", "2"), (1, 4, "kata", "3")]
    assert diagnostics[0]["message"].startswith("case 1 (two times three): ")
    assert {(lens["line"], lens["title"], lens["command"]) for lens in result["lenses"]} == {
        (1, "kata: run (0/3 cases passed)", "kata.run"), (1, "kata: statement", "kata.showProblem")}
    assert result["lens_ran"]
