"""The Python API (`from infrakata import Grader`) as a harness uses it: the README's example run as it is
written, the same objects as `kata run --json`, many threads over one pool, nothing left running after the
`with` block, errors that name the fix, and no progress recorded unless asked. Real workers throughout."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch
from infrakata.core.progress.store import store_path

from infrakata import BadArgument, CannotGrade, Grader, KataError, Result, Source

REPO = Path(__file__).resolve().parents[2]
KATA = Path(sys.executable).with_name("kata")
CLI_PROBLEMS = REPO / "tests" / "server" / "fixtures" / "problems"  # fixture-scale and friends
sys.path.insert(0, str(REPO / "benchmarks"))
from soak import descendants, process_stat, reap_orphans  # noqa: E402 - the soak's own process census

RIGHT = "def scale(x, factor):\n    return x * factor\n"
WRONG = "def scale(x, factor):\n    return x * factor + (x == 2)\n"  # passes 2 of 3
RAISES = "def scale(x, factor):\n    raise ValueError('not yet')\n"
TIMES = ("time_ms",)


@pytest.fixture(scope="module")
def grader():
    with Grader(CLI_PROBLEMS) as grader:
        yield grader


def _untimed(data: dict) -> dict:
    """A result's JSON without its times, which differ between two gradings of the same source."""
    return {**{k: v for k, v in data.items() if k not in TIMES},
            "cases": [{k: v for k, v in case.items() if k not in TIMES} for case in data["cases"]]}


def _attempts() -> int:
    path = store_path(None)
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0])


def test_the_readme_example_runs_as_written(tmp_path):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```python\n(from infrakata import Grader\n.*?)```", readme, re.S).group(1)
    assert len(example.splitlines()) <= 10
    data = tmp_path / "user-data"
    done = subprocess.run([sys.executable, "-c", example], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env={**os.environ, "XDG_DATA_HOME": str(data)})
    assert done.returncode == 0, done.stderr
    promised = re.search(r"# (accepted .*)", example).group(1).split(", ")
    assert done.stdout.splitlines() == promised
    assert not (data / "infrakata" / "history.sqlite").exists()  # strings are never the learner's progress


def test_a_result_is_what_kata_run_json_prints(grader, tmp_path):
    solution = tmp_path / "scale.py"
    solution.write_text(WRONG)
    printed = subprocess.run([str(KATA), "--problems", str(CLI_PROBLEMS), "run", str(solution), "--problem",
                              "fixture-scale", "--json"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert printed.returncode == 1, printed.stderr
    from_file = grader.grade(solution, problem="fixture-scale")
    from_string = grader.grade(WRONG, problem="fixture-scale", name=str(solution))
    assert isinstance(from_file, Result)
    assert _untimed(from_file.to_json()) == _untimed(from_string.to_json()) == _untimed(json.loads(printed.stdout))
    assert (from_file.verdict, from_file.passed, from_file.total, from_file.accepted) == ("wrong_answer", 2, 3, False)
    assert from_file.cases[0].expected == "6" and from_file.cases[0].actual == "7"
    assert from_file.name == str(solution) and from_file.problem == "fixture-scale"


def test_a_string_is_named_in_its_messages_and_matched_by_its_header(grader):
    result = grader.grade(RAISES, problem="fixture-scale", name="attempt-17")
    assert result.verdict == "runtime_error" and result.name == "attempt-17"
    assert "ValueError: not yet" in result.cases[0].message
    assert grader.grade("# kata: fixture-scale\n" + RIGHT).problem == "fixture-scale"
    assert grader.grade(RIGHT).verdict == "accepted"  # matched by its entry point, as kata run would


def test_problems_from_a_folder_or_file_of_ones_own(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    codestar = CLI_PROBLEMS / "fixture-codestar-double.json"
    (folder / codestar.name).write_text(codestar.read_text(encoding="utf-8"), encoding="utf-8")
    entry = json.loads(codestar.read_text(encoding="utf-8"))
    with Grader(folder) as grader:  # added to the catalogue, as `kata --problems` adds it
        assert grader.grade(entry["reference_code"], problem=entry["slug"]).accepted
        assert grader.grade(RIGHT, problem=str(CLI_PROBLEMS / "fixture-scale")).accepted  # or named by its path


def test_many_threads_grade_at_once_over_one_pool(grader):
    sources = [(RIGHT, "accepted"), (WRONG, "wrong_answer"), (RAISES, "runtime_error")] * 4
    got: dict[int, str] = {}
    failures: list[BaseException] = []

    def grade(index: int, source: str) -> None:
        try:
            got[index] = grader.grade(source, problem="fixture-scale", name=f"t{index}").verdict
        except BaseException as error:  # noqa: BLE001 - said by the test's own thread
            failures.append(error)

    threads = [threading.Thread(target=grade, args=(i, source)) for i, (source, _) in enumerate(sources)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not failures and not any(t.is_alive() for t in threads)
    assert got == {i: verdict for i, (_, verdict) in enumerate(sources)}


def test_grade_many_keeps_the_order_and_checks_every_source_first(grader):
    sources = [WRONG, Source(RIGHT, "named"), RAISES] * 3
    results = grader.grade_many(sources, problem="fixture-scale", jobs=3)
    assert [r.verdict for r in results] == ["wrong_answer", "accepted", "runtime_error"] * 3
    assert results[1].name == "named"
    with pytest.raises(CannotGrade, match="no problem 'fixture-scal'.*did you mean fixture-scale"):
        grader.grade_many([RIGHT, Source(RIGHT, "typo", problem="fixture-scal")], problem="fixture-scale")
    with pytest.raises(BadArgument, match="a list of sources"):
        grader.grade_many(RIGHT, problem="fixture-scale")


@pytest.mark.parametrize("call,words", [
    (lambda g: g.grade(42, problem="fixture-scale"), "got a int object: pass the code as a str, a pathlib.Path"),
    (lambda g: g.grade(RIGHT.encode(), problem="fixture-scale"), "decode it to a str"),
    (lambda g: g.grade(RIGHT, problem=7), "give a slug"),
    (lambda g: g.grade(RIGHT, problem="fixture-scale", name=""), "non-empty string"),
    (lambda g: g.grade_many([RIGHT], problem="fixture-scale", jobs=0), "at least 1"),
])
def test_an_argument_of_the_wrong_type_says_what_to_pass(grader, call, words):
    with pytest.raises(BadArgument, match=re.escape(words)) as raised:
        call(grader)
    assert isinstance(raised.value, KataError) and isinstance(raised.value, TypeError)


def test_what_cannot_be_graded_is_a_kata_error_that_says_why(grader, tmp_path):
    with pytest.raises(CannotGrade, match=r"no problem 'adam-optimizer-memory'.*did you mean adam-optimizer-memory-b"):
        grader.grade(RIGHT, problem="adam-optimizer-memory")
    with pytest.raises(CannotGrade, match=r"no problem 'sclae'.*`kata list` shows the catalogue"):
        grader.grade(RIGHT, problem="sclae")
    with pytest.raises(CannotGrade, match="no such file"):
        grader.grade(tmp_path / "missing.py", problem="fixture-scale")
    with pytest.raises(CannotGrade, match="no problem matches"):
        grader.grade("def something_else():\n    pass\n")
    with pytest.raises(KataError, match="problem path does not exist"):
        Grader(tmp_path / "no-such-folder")


def test_a_string_is_recorded_only_when_asked():
    before = _attempts()
    with Grader(CLI_PROBLEMS) as grader:
        grader.grade(RIGHT, problem="fixture-scale")
    assert _attempts() == before
    with Grader(CLI_PROBLEMS, record=True) as grader:
        grader.grade(RIGHT, problem="fixture-scale")
    assert _attempts() == before + 1


def test_nothing_outlives_the_with_block():
    before = set(descendants(set()))
    with Grader(CLI_PROBLEMS) as grader:
        assert grader.grade(RIGHT, problem="fixture-scale").accepted
        ours = set(descendants(before))
        assert ours, "the Grader started no process of its own"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(ours | set(descendants(before))):
        reap_orphans()
        time.sleep(0.05)
    assert not _alive(ours | set(descendants(before)))
    with pytest.raises(CannotGrade, match="closed"):
        grader.grade(RIGHT, problem="fixture-scale")


def test_a_kernel_solution_gets_the_benchmarks_figures(grader):
    result = grader.grade(REPO / "kernels" / "softmax.py", problem="fused-row-softmax", bench=True)
    assert result.accepted and result.bench is not None and result.bench.correct
    figures = result.to_json()["bench"]
    if torch.cuda.is_available():
        assert figures["geomean_gbps"] > 0
    else:  # as kata bench says it: no figure, and why
        assert figures["geomean_gbps"] is None and result.bench.geomean is None
        assert "throughput needs a CUDA GPU" in result.bench.notes[0]
    assert "bench" not in grader.grade(RIGHT, problem="fixture-scale", bench=True).to_json()  # no benchmark


def _alive(pids: set[int]) -> set[int]:
    return {pid for pid in pids if (found := process_stat(pid)) is not None and found[1] != "Z"}

