"""A newcomer's first afternoon, through the real `kata` binary: each rough edge they met.
Every test has its own per-user store (XDG_DATA_HOME), so progress is the test's own."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

KATA = Path(sys.executable).with_name("kata")
REPO = Path(__file__).resolve().parents[1]
CORRECT = "# kata: fixture-scale\ndef scale(x, factor):\n    return x * factor\n"
WRONG = "# kata: fixture-scale\ndef scale(x, factor):\n    return x * factor + (x == 2)\n"  # passes 2 of 3


def said(done: subprocess.CompletedProcess) -> str:
    """stderr with rich's wrapping undone."""
    return re.sub(r"\s+", " ", done.stderr)


def test_list_shows_every_slug_whole_on_an_80_column_terminal(kata):
    slugs = [p["slug"] for p in json.loads(kata("list", "--json").stdout)]
    for columns in (80, 100):
        shown = kata("list", columns=columns).stdout
        assert "…" not in shown
        for slug in slugs:
            assert re.search(rf"(?m)^\s*{re.escape(slug)}\s", shown), (columns, slug, shown)


def test_start_into_a_file_or_a_folder_it_cannot_make_says_why(kata, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    into_file = kata("start", "fixture-scale", str(notes))
    assert into_file.returncode == 2 and "Traceback" not in into_file.stderr
    assert f"{notes} is a file" in said(into_file) and notes.read_text() == "mine\n"

    nowhere = kata("start", "fixture-scale", "/proc/nope")
    assert nowhere.returncode == 2 and "Traceback" not in nowhere.stderr
    assert "cannot create /proc/nope" in said(nowhere)

    mine = tmp_path / "week1" / "scaled.py"  # a .py path is the file to write, as for `kata reset`
    done = kata("start", "fixture-scale", str(mine))
    assert done.returncode == 0 and mine.read_text().startswith("# kata: fixture-scale\n")
    again = kata("start", "fixture-scale", str(mine))
    assert again.returncode == 2 and f"kata reset fixture-scale {mine}" in said(again)


def test_next_given_a_file_suggests_its_folder(kata, tmp_path):
    mine = tmp_path / "mine.py"
    mine.write_text(CORRECT)
    suggestion = kata("next", str(mine))
    assert suggestion.returncode == 0
    line = next(line for line in suggestion.stdout.splitlines() if line.startswith("run: "))
    assert line.endswith(f" {tmp_path}"), line


def test_grade_refuses_a_folder_for_out_or_junit_before_grading(kata, tmp_path):
    (tmp_path / "fixture_scale.py").write_text(CORRECT)
    folder = tmp_path / "reports"
    folder.mkdir()
    out = kata("grade", "fixture_scale.py", "--out", str(folder))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"--out {folder} is a folder" in said(out)
    junit = kata("grade", "fixture_scale.py", "--out", "results.jsonl", "--junit", str(folder))
    assert junit.returncode == 2 and "Traceback" not in junit.stderr
    assert f"--junit {folder} is a folder" in said(junit)
    assert not (tmp_path / "results.jsonl").exists()  # said before grading, not after
    unwritable = kata("grade", "fixture_scale.py", "--junit", "/proc/nope/junit.xml")
    assert unwritable.returncode == 2 and "Traceback" not in unwritable.stderr
    assert "/proc/nope" in said(unwritable)


def test_the_readme_example_is_graded_but_not_recorded_as_progress(kata):
    readme = (REPO / "README.md").read_text()
    assert "kata run examples/gradient_accumulation.py" in readme
    done = kata("run", "examples/gradient_accumulation.py", cwd=REPO)
    assert done.returncode == 0 and "accepted" in done.stdout
    listed = json.loads(kata("list", "--json").stdout)
    assert next(p["progress"] for p in listed if p["slug"] == "gradient-accumulation") is None
    assert kata("solution", "gradient-accumulation").returncode == 1  # still locked
    assert kata("next").stdout.startswith("next: ")
    assert not (kata.data / "infrakata" / "history.sqlite").exists()


def test_a_byte_order_mark_does_not_hide_the_header(kata, tmp_path):
    mine = tmp_path / "scaled.py"
    mine.write_text("\ufeff" + CORRECT, encoding="utf-8")
    matched = kata("run", str(mine))
    assert matched.returncode == 0, matched.stdout + matched.stderr
    named = kata("run", str(mine), "--problem", "fixture-scale", "--json")
    assert named.returncode == 0 and json.loads(named.stdout)["verdict"] == "accepted"
    batch = kata("grade", str(mine))  # batch grading (as the server) reads the file itself
    assert batch.returncode == 0 and json.loads(batch.stdout)["verdict"] == "accepted"


def test_reset_refuses_a_file_that_belongs_to_another_kata(kata, tmp_path):
    mine = tmp_path / "fixture_scale.py"
    mine.write_text(WRONG)
    other = kata("reset", "fixture-codestar-double", str(mine), "--yes")
    assert other.returncode == 2 and "Traceback" not in other.stderr
    message = said(other)
    assert "belongs to fixture-scale, not fixture-codestar-double" in message
    assert f"kata reset fixture-scale {mine}" in message
    notes = tmp_path / "notes.py"
    notes.write_text("x = 1\n")
    unrelated = kata("reset", "fixture-scale", str(notes), "--yes")
    assert unrelated.returncode == 2 and "does not belong to fixture-scale" in said(unrelated)
    assert mine.read_text() == WRONG and notes.read_text() == "x = 1\n"
    assert not list(tmp_path.glob("*.bak"))
    assert kata("reset", "fixture-scale", str(mine), "--yes").returncode == 0  # its own kata: rewritten


def test_leaderboard_says_why_it_has_nothing_to_show(kata, tmp_path):
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not json\n[1, 2]\n")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    results = tmp_path / "results.jsonl"
    (tmp_path / "fixture_scale.py").write_text(CORRECT)
    assert kata("grade", "fixture_scale.py", "--out", str(results)).returncode == 0  # a line the grader signed
    done = kata("leaderboard", str(garbage))
    assert done.returncode == 2 and "no result lines" in said(done)
    done = kata("leaderboard", str(empty))
    assert done.returncode == 2 and f"{empty} is empty" in said(done)
    done = kata("leaderboard", str(results), "--problem", "fixture-scael")
    assert done.returncode == 2 and "no results for fixture-scael" in said(done) and "fixture-scale" in said(done)
    assert kata("leaderboard", str(results), "--problem", "fixture-scale").returncode == 0
    for top in ("0", "-1"):
        done = kata("leaderboard", str(results), "--top", top)
        assert done.returncode == 2 and "at least 1" in done.stderr


def test_list_filters_name_the_valid_values_and_todo_counts_the_whole_area(kata, tmp_path):
    area = kata("list", "--area", "Tset")
    assert area.returncode == 2 and "no area 'Tset'" in said(area)
    assert "Test" in said(area) and "Memory" in said(area)
    difficulty = kata("list", "--difficulty", "hardd")
    assert difficulty.returncode == 2 and "Easy, Medium, Hard" in said(difficulty)
    tag = kata("list", "--tag", "fixturez")
    assert tag.returncode == 2 and "no problem is tagged 'fixturez'" in said(tag)

    (tmp_path / "fixture_scale.py").write_text(CORRECT)
    assert kata("run", "fixture_scale.py").returncode == 0
    todo = kata("list", "--area", "test", "--todo").stdout
    assert "fixture-scale" not in todo and "Test: 1/2 solved, 1 attempted" in todo


def test_run_json_says_could_not_grade_with_the_object_kata_grade_writes(kata, tmp_path):
    stray = tmp_path / "notes.py"
    stray.write_text("x = 1\n")
    for target in ("missing.py", str(stray)):
        done = kata("run", target, "--json")
        assert done.returncode == 2
        result = json.loads(done.stdout)
        assert result["verdict"] == "could_not_grade" and result["file"] == target and result["reason"]
        graded = kata("grade", target)
        line = json.loads(graded.stdout.splitlines()[0])
        assert set(result) == set(line) - {"id", "signature"}
        assert result["reason"] == line["reason"]


def test_version():
    done = subprocess.run([str(KATA), "--version"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.strip() == f"kata (infrakata) {version('infrakata')}"


def test_a_passed_case_has_no_cause(kata, tmp_path):
    (tmp_path / "fixture_scale.py").write_text(CORRECT.replace("x * factor", "x * factor if x != 2 else 1 / 0"))
    result = json.loads(kata("run", "fixture_scale.py", "--json").stdout)
    causes = {case["status"]: case["cause"] for case in result["cases"]}
    assert causes == {"passed": None, "error": "exception"}, result["cases"]
