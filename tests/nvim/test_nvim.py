"""Neovim (Debian's 0.7.2 in CI) as a real client: open a solution, save, see the kata diagnostics
and code lenses, run a lens. The editor is driven by kata.lua; skipped where nvim is missing."""

from __future__ import annotations

import json
import os
import re
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
    # On the line that returned the wrong value.
    assert [(d["lnum"], d["col"], d["source"], d["code"]) for d in diagnostics] == [
        (2, 4, "kata", "1"), (2, 4, "kata", "2"), (2, 4, "kata", "3")]
    assert diagnostics[0]["message"].startswith("case 1 (two times three): ")
    assert {(lens["line"], lens["title"], lens["command"]) for lens in result["lenses"]} == {
        (1, "kata: run (0/3 cases passed)", "kata.run"), (1, "kata: statement", "kata.showProblem")}
    assert result["lens_ran"]
    # The opened (correct) file was accepted: the server offered the next kata, once, without a prompt (Neovim's
    # takes over the editor until answered: it hung a headless Neovim), saying how to start it.
    assert result["prompts"] == []
    [offer] = [m for m in result["messages"] if "accepted. Next: " in m]
    assert offer.startswith("kata: fixture-scale accepted. Next: ") and 'the code action "kata: start ' in offer


def _recipe(markdown: str, section: str) -> str:
    """The first ```lua block after a heading of docs/NEOVIM.md."""
    after = markdown[markdown.index(f"## {section}"):]
    return re.search(r"```lua\n(.*?)```", after, re.DOTALL).group(1)


def test_the_documented_neovim_07_recipe_works_as_written(tmp_path: Path):
    docs = (HERE.parents[1] / "docs" / "NEOVIM.md").read_text()
    kata = Path(sys.executable).with_name("kata")
    recipe = _recipe(docs, "Code lenses and commands") + _recipe(docs, "Neovim 0.7")
    documented = re.search(r"^local kata_cmd = .*$", recipe, re.MULTILINE).group(0)
    assert ".venv/bin/kata" in documented  # scripts/setup puts kata there, not on PATH
    init = tmp_path / "init.lua"
    init.write_text(recipe.replace(documented, f"local kata_cmd = {{ '{kata}', 'serve' }}"))
    (tmp_path / "kata.toml").write_text(f'problems = ["{PROBLEMS}"]\nwatch_files = false\n')
    solution = tmp_path / "sol.py"
    solution.write_text(WRONG)
    out = tmp_path / "out.json"
    env = {**os.environ, "KATA_FILE": str(solution), "KATA_OUT": str(out),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}  # no kata on PATH
    subprocess.run(["nvim", "--headless", "--clean", "-c", f"luafile {init}", "-c", f"luafile {HERE / 'docs.lua'}"],
                   env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, timeout=180, check=True)
    result = json.loads(out.read_text())
    assert "error" not in result, result
    assert not [e for e in result["errors"] if "not supported" in e], result["errors"]  # codeLens before init
    assert result["shown"], "KataShow opened no statement"
    assert result["lens_opened"], "the statement lens opened no statement"
    assert any("hint 1/2: Multiplication is all it takes" in m for m in result["messages"]), result["messages"]
    assert result["started"] and result["started_text"] == "# kata: fixture-codestar-double"
    assert (tmp_path / "fixture_codestar_double.py").is_file()


TWO_RETURNS = (HERE.parent / "server" / "fixtures" / "solutions" / "two_returns.py").read_text()


def test_the_documented_inline_values_show_as_virtual_text_before_neovim_010(tmp_path: Path):
    """Neovim 0.7 has no inlay hints: docs/NEOVIM.md's fallback draws the values from kata/result."""
    docs = (HERE.parents[1] / "docs" / "NEOVIM.md").read_text()
    kata = Path(sys.executable).with_name("kata")
    recipe = _recipe(docs, "Code lenses and commands") + _recipe(docs, "Inline values") + _recipe(docs, "Neovim 0.7")
    documented = re.search(r"^local kata_cmd = .*$", recipe, re.MULTILINE).group(0)
    init = tmp_path / "init.lua"
    init.write_text(recipe.replace(documented, f"local kata_cmd = {{ '{kata}', 'serve' }}"))
    (tmp_path / "kata.toml").write_text(f'problems = ["{PROBLEMS}"]\nwatch_files = false\n')
    solution = tmp_path / "sol.py"
    solution.write_text(TWO_RETURNS)
    out = tmp_path / "out.json"
    env = {**os.environ, "KATA_FILE": str(solution), "KATA_OUT": str(out),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    subprocess.run(["nvim", "--headless", "--clean", "-c", f"luafile {init}", "-c", f"luafile {HERE / 'values.lua'}"],
                   env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, timeout=180, check=True)
    result = json.loads(out.read_text())
    assert "error" not in result, result
    assert result["shown"] == [  # 0-based lines, at their ends
        {"line": 1, "text": "case 2 (a tenth):  x = 1.0  factor = 0.1"},
        {"line": 4, "text": "product = 0.1"},
        {"line": 5, "text": "out = 1.1, expected 0.1"},
    ]
    assert result["cleared"], "an edit left the values of the text before it"


def test_kata_benchmark_in_neovim_07_says_its_figure_when_it_ends(tmp_path: Path):
    """Neovim 0.7 shows no work-done progress, and the lens only when asked again: the documented :KataBenchmark
    notifies the result (here, without CUDA, that the kernel is correct and timing needs a GPU)."""
    docs = (HERE.parents[1] / "docs" / "NEOVIM.md").read_text()
    kata = Path(sys.executable).with_name("kata")
    recipe = _recipe(docs, "Code lenses and commands") + _recipe(docs, "Neovim 0.7")
    documented = re.search(r"^local kata_cmd = .*$", recipe, re.MULTILINE).group(0)
    init = tmp_path / "init.lua"
    init.write_text(recipe.replace(documented, f"local kata_cmd = {{ '{kata}', 'serve' }}"))
    (tmp_path / "kata.toml").write_text("watch_files = false\n")
    solution = tmp_path / "swiglu.py"
    solution.write_text("# kata: fused-swiglu\n" + (HERE.parents[1] / "kernels" / "swiglu.py").read_text())
    out = tmp_path / "out.json"
    env = {**os.environ, "KATA_FILE": str(solution), "KATA_OUT": str(out),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    subprocess.run(["nvim", "--headless", "--clean", "-c", f"luafile {init}", "-c", f"luafile {HERE / 'bench.lua'}"],
                   env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, timeout=300, check=True)
    result = json.loads(out.read_text())
    assert "error" not in result, result
    assert result["said"], result["notified"]
    [headline] = [m for m in result["notified"] if m.startswith("kata: fused-swiglu: ")]
    assert headline in ("kata: fused-swiglu: correct; timing needs a CUDA GPU",) or "GB/s" in headline
