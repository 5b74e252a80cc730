"""The learner's path through the `kata` binary: hints, the solution after acceptance, progress with
or without a workspace, list filters, next, reset. Each test runs the real CLI with its own
per-user store (XDG_DATA_HOME) so that progress is the test's own."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORRECT = "# kata: fixture-scale\ndef scale(x, factor):\n    return x * factor\n"
WRONG = "# kata: fixture-scale\ndef scale(x, factor):\n    return x * factor + (x == 2)\n"  # passes 2 of 3


def _progress(kata, cwd: Path, slug: str) -> dict | None:
    listed = kata("list", "--json", cwd=cwd)
    return next(p["progress"] for p in json.loads(listed.stdout) if p["slug"] == slug)


def test_hints_are_revealed_one_tier_at_a_time_and_remembered(kata, tmp_path):
    first = kata("hint", "fixture-scale")
    assert first.returncode == 0
    assert "hint 1/2  Multiplication is all it takes: no loop." in first.stdout
    assert "提示 1/2  只需一次乘法。" in first.stdout and "hint 2/2" not in first.stdout
    second = kata("hint", "fixture-scale")  # another process: the first tier was recorded
    assert "hint 2/2  Return `x * factor` [no rounding]." in second.stdout and "hint 1/2" not in second.stdout
    both = kata("hint", "fixture-scale", "2")
    assert "hint 1/2" in both.stdout and "hint 2/2" in both.stdout
    too_far = kata("hint", "fixture-scale", "3")
    assert too_far.returncode == 2 and "has 2 hints: ask for 1 to 2" in too_far.stderr
    none = kata("hint", "fixture-codestar-double")
    assert none.returncode == 2 and "fixture-codestar-double has no hints" in none.stderr

    workspace = tmp_path / "course"  # another workspace starts from the first tier again
    workspace.mkdir()
    (workspace / "kata.toml").write_text("")
    assert "hint 1/2" in kata("hint", "fixture-scale", cwd=workspace).stdout


def test_the_solution_unlocks_only_after_acceptance_without_any_kata_toml(kata, tmp_path):
    work = tmp_path / "anywhere"  # no kata.toml, no pyproject: the per-user store keeps the progress
    work.mkdir()
    locked = kata("solution", "fixture-scale", cwd=work)
    assert locked.returncode == 1 and "unlocks once the kata is accepted" in locked.stdout
    assert "no attempt yet" in locked.stdout and "x * factor" not in locked.stdout

    (work / "fixture_scale.py").write_text(WRONG)
    assert kata("run", "fixture_scale.py", cwd=work).returncode == 1
    locked = kata("solution", "fixture-scale", cwd=work)
    assert locked.returncode == 1 and "your best attempt passed 2/3 cases" in locked.stdout

    (work / "fixture_scale.py").write_text(CORRECT)
    assert kata("run", "fixture_scale.py", cwd=work).returncode == 0
    assert (kata.data / "infrakata" / "history.sqlite").is_file() and not (work / ".kata").exists()
    shown = kata("solution", "fixture-scale", cwd=work)
    assert shown.returncode == 0
    assert "Scaling is one multiplication; [brackets] stay as written." in shown.stdout  # the editorial
    assert "return x * factor" in shown.stdout  # the reference
    assert _progress(kata, work, "fixture-scale")["accepted"] is True  # survives: a new process reads it


def test_the_solution_of_a_kata_whose_reference_breaks_its_rules_shows_the_model_solution_too(kata, tmp_path):
    """adamw-step's reference is torch.optim itself, which the kata forbids: the learner also gets solution.py."""
    model = (REPO / "problems" / "adamw-step" / "solution.py").read_text(encoding="utf-8")
    (tmp_path / "adamw_step.py").write_text("# kata: adamw-step\n" + model)
    assert kata("run", "adamw_step.py").returncode == 0
    shown = kata("solution", "adamw-step")
    assert shown.returncode == 0 and "torch.optim.AdamW(ps" in shown.stdout  # the reference
    after = shown.stdout.split("A solution within the kata's rules", 1)
    assert len(after) == 2 and "torch.lerp(m, g, 1 - beta1)" in after[1]


def test_codestar_editorial_md_is_the_solution_of_a_codestar_problem(kata, tmp_path):
    (tmp_path / "double.py").write_text("# kata: fixture-codestar-double\ndef double(x):\n    return 2 * x\n")
    assert kata("run", "double.py").returncode == 0
    shown = kata("solution", "fixture-codestar-double")
    assert shown.returncode == 0 and "Multiply by two" in shown.stdout and "return 2 * x" in shown.stdout


def test_a_workspace_keeps_its_own_progress(kata, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "kata.toml").write_text("")
    (workspace / "fixture_scale.py").write_text(CORRECT)
    assert kata("run", "fixture_scale.py", cwd=workspace).returncode == 0
    assert (workspace / ".kata" / "history.sqlite").is_file()
    assert _progress(kata, workspace, "fixture-scale")["accepted"] is True
    assert _progress(kata, tmp_path, "fixture-scale") is None  # the per-user store saw nothing


def test_list_filters_and_counts_per_area(kata, tmp_path):
    (tmp_path / "fixture_scale.py").write_text(CORRECT)
    kata("run", "fixture_scale.py")

    def slugs(*filters: str) -> list[str]:
        return [p["slug"] for p in json.loads(kata("list", "--json", *filters).stdout)]

    assert slugs("--area", "test") == ["fixture-codestar-double", "fixture-scale"]
    assert slugs("--category", "Test", "--solved") == ["fixture-scale"]
    assert "fixture-scale" not in slugs("--todo") and "fixture-codestar-double" in slugs("--todo")
    hard = slugs("--difficulty", "hard")
    assert "quantized-adamw-8bit" in hard and "adam-optimizer-memory-bytes" not in hard
    assert set(slugs("--tag", "triton")) >= {"fused-row-softmax", "quantized-adamw-8bit"}
    text = kata("list", "--area", "Test").stdout
    assert "Test: 1/2 solved, 1 attempted" in text
    assert "progress from " in text


def test_next_is_the_first_unsolved_kata_in_course_order(kata, tmp_path):
    first = kata("next")
    assert first.returncode == 0
    slug = re.search(r"next: (\S+)", first.stdout).group(1)
    # The warm-up comes first: it teaches the tool on a problem outside the areas.
    assert slug == "edit-distance" and "(Warm-up, Easy)" in first.stdout and f"run: kata start {slug}" in first.stdout
    solution = tmp_path / "mine.py"
    solution.write_text(f"# kata: {slug}\n" + (REPO / "problems" / slug / "reference.py").read_text())
    assert kata("run", str(solution)).returncode == 0
    after = kata("next")
    assert re.search(r"next: (\S+)", after.stdout).group(1) != slug and "(Memory, Easy)" in after.stdout


def test_reset_rewrites_the_starter_after_confirmation_and_keeps_a_backup(kata, tmp_path):
    mine = tmp_path / "fixture_scale.py"
    mine.write_text(WRONG)
    refused = kata("reset", "fixture-scale")  # no terminal to ask on, no --yes
    assert refused.returncode == 2 and "--yes" in refused.stderr and mine.read_text() == WRONG
    done = kata("reset", "fixture-scale", "--yes")
    assert done.returncode == 0
    assert mine.read_text().startswith("# kata: fixture-scale\ndef scale(x, factor):")
    assert "raise NotImplementedError" in mine.read_text()
    assert (tmp_path / "fixture_scale.py.bak").read_text() == WRONG
    assert "fixture_scale.py.bak" in done.stdout
    mine.write_text(CORRECT)
    assert kata("reset", "fixture-scale", str(mine), "--yes").returncode == 0  # the file itself
    assert (tmp_path / "fixture_scale.py.2.bak").read_text() == CORRECT  # the first backup is kept
    assert (tmp_path / "fixture_scale.py.bak").read_text() == WRONG


def test_start_refuses_to_overwrite_and_names_reset(kata, tmp_path):
    (tmp_path / "fixture_scale.py").write_text(WRONG)
    again = kata("start", "fixture-scale")
    assert again.returncode == 2 and "kata reset fixture-scale" in again.stderr


def _problem_copy(kata, tmp_path: Path, name: str = "fixture-scale") -> Path:
    folder = tmp_path / "problems" / name
    shutil.copytree(kata.problems / "fixture-scale", folder)
    shutil.copy(kata.problems / "tags.toml", folder.parent)  # the fixtures' own tags ("fixture") travel with them
    return folder


def test_check_problems_passes_a_good_problem_and_a_codestar_seed(kata, tmp_path, seeds):
    folder = _problem_copy(kata, tmp_path)
    (folder / "wrong").mkdir()
    (folder / "wrong" / "plus_one.py").write_text("# expect: wrong_answer\ndef scale(x, factor):\n"
                                                  "    return x * factor + 1\n")
    done = kata("check-problems", str(folder), str(seeds / "codestar-adam-optimizer-memory-bytes.json"))
    assert done.returncode == 0, done.stdout
    assert re.search(r"ok +fixture-scale", done.stdout) and re.search(r"ok +adam-optimizer-memory-bytes", done.stdout)
    assert "2/2 problems pass" in done.stdout


def test_check_problems_names_what_is_wrong_with_each_problem(kata, tmp_path):
    folder = _problem_copy(kata, tmp_path)
    (folder / "starter.py").write_text("def scale(x, factor):\n    return x * factor\n")  # accepted
    (folder / "README.md").write_text("## English\n\nReturn `x * factor`.\n")  # no Chinese
    (folder / "wrong").mkdir()
    (folder / "wrong" / "lies.py").write_text("# expect: runtime_error\ndef scale(x, factor):\n    return x\n")
    (folder / "wrong" / "silent.py").write_text("def scale(x, factor):\n    return x\n")
    random = tmp_path / "problems" / "fixture-random"
    shutil.copytree(kata.problems / "fixture-scale", random)
    toml = (random / "problem.toml").read_text().replace('"fixture-scale"', '"fixture-random"')
    (random / "problem.toml").write_text(toml[:toml.index("[[cases]]")])
    (random / "cases.py").write_text("import random\n\ndef cases():\n"
                                     "    return [{'name': 'r', 'args': (random.random(), 2.0)}]\n")
    (tmp_path / "problems" / "broken.json").write_text('{"slug": "x",\n "title": }\n')

    done = kata("check-problems", str(tmp_path / "problems"))
    assert done.returncode == 1
    out = re.sub(r"\s+", " ", done.stdout)
    assert "FAIL fixture-scale" in out
    assert "README.md has no ## 中文 section" in out
    assert "the starter is accepted: it must not be" in out
    assert "wrong/lies.py: expected runtime_error, got wrong_answer" in out
    assert "wrong/silent.py: its first lines must say `# expect: <verdict>`" in out
    assert "FAIL fixture-random" in out and "cases() is not deterministic: case 1 (r) differs" in out
    assert "broken.json" in out and "invalid JSON" in out
    assert "0/3 problems pass; 3 fail" in out

