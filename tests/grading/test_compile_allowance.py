"""A worker's first call may compile its kernels: it has an allowance beyond the time limit, a case
that used it says so, and later calls keep the plain limit (core/limits.py, core/grading/calls.py).

On CUDA the allowance is COMPILE_ALLOWANCE_S by default; on the CPU (the Triton interpreter compiles
nothing) there is none unless a problem sets `compile_allowance`, which is how the CPU tests below
drive real workers through it: a first call that sleeps stands in for a compile.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from infrakata.core.catalog.loading import load_problem
from infrakata.core.errors import ProblemError
from infrakata.core.grading.runner import Runner
from infrakata.core.limits import COMPILE_ALLOWANCE_S, CUDA_START_S, Limits
from infrakata.core.sandbox.pool import WorkerPool

REPO = Path(__file__).resolve().parents[2]
KATA = Path(sys.executable).with_name("kata")
CUDA = torch.cuda.is_available()

# A problem whose calls sleep the seconds they are given: one second per call, three more for a first
# compile. The sleeps leave a second or more of margin either side of each limit.
TIME_LIMIT, ALLOWANCE = 1.0, 3.0
WAIT = "import time\n\n\ndef wait(seconds):\n    time.sleep(seconds)\n    return seconds\n"


def write_problem(folder: Path, *seconds: float, extra: str = f"compile_allowance = {ALLOWANCE}\n") -> Path:
    folder.mkdir()
    cases = "".join(f'[[cases]]\nname = "sleeps {s:g} s"\nargs = [{s}]\n\n' for s in seconds)
    (folder / "problem.toml").write_text(
        f'slug = "{folder.name}"\ntitle = "Wait"\nentry_point = "wait"\ntime_limit = {TIME_LIMIT}\n{extra}\n{cases}',
        encoding="utf-8")
    (folder / "reference.py").write_text("def wait(seconds):\n    return seconds\n", encoding="utf-8")
    return folder


# -- the figures -----------------------------------------------------------------------------------

def test_only_a_cuda_workers_first_call_and_load_get_the_compile_allowance():
    limits = Limits(time_s=5.0)
    assert limits.call_timeout(cuda=True, first=True) == 5.0 + COMPILE_ALLOWANCE_S
    assert limits.call_timeout(cuda=True, first=False) == 5.0  # later calls keep the plain limit
    assert limits.call_timeout(cuda=False, first=True) == 5.0  # the interpreter compiles nothing
    assert limits.load_timeout(cuda=True) == 5.0 + COMPILE_ALLOWANCE_S + CUDA_START_S
    assert limits.load_timeout(cuda=False) == 5.0
    # The CPU-time backstop stays behind the wall clock when the load and the first call both compile.
    assert limits.worker(calls=2, cuda=True).cpu_seconds > 2 * 5.0 + 2 * COMPILE_ALLOWANCE_S


def test_a_problems_own_allowance_applies_on_either_device():
    assert Limits(time_s=2.0, compile_s=7.0).call_timeout(cuda=False, first=True) == 9.0
    assert Limits(time_s=2.0, compile_s=0.0).call_timeout(cuda=True, first=True) == 2.0  # none wanted


def test_compile_allowance_is_read_from_problem_toml_and_checked(tmp_path):
    assert load_problem(write_problem(tmp_path / "wait", 0.0)).limits == Limits(time_s=TIME_LIMIT, compile_s=ALLOWANCE)
    assert load_problem(write_problem(tmp_path / "plain", 0.0, extra="")).limits.compile_s is None
    bad = write_problem(tmp_path / "bad", 0.0, extra="compile_allowance = -1\n")
    with pytest.raises(ProblemError) as raised:
        load_problem(bad)
    assert str(raised.value) == (f"{bad / 'problem.toml'}:5: field 'compile_allowance': must be a number of "
                                 f"seconds >= 0, got -1.0")


# -- real workers ------------------------------------------------------------------------------------

def test_a_first_call_within_the_allowance_passes_with_a_note_and_a_later_one_times_out(runner, tmp_path):
    problem = load_problem(write_problem(tmp_path / "wait", 2.0, 0.0, 2.0, 0.0))
    report = runner.run(problem, WAIT, tmp_path / "wait.py")
    assert [c.status for c in report.cases] == ["passed", "passed", "timeout", "skipped"]
    first = report.cases[0]
    assert first.note.startswith("took 2.")
    assert first.note.endswith(" s, including the first compile of its kernels (the 1 s limit applies from the "
                               "second call)")
    assert report.cases[1].note == ""
    # The plain limit, from the second call on, and the line that was running when it came.
    assert report.cases[2].message == "time limit exceeded (1 s) while this line ran" and report.cases[2].line
    assert report.verdict == "time_limit_exceeded"


def test_a_first_call_over_the_limit_and_the_allowance_names_both(runner, tmp_path):
    problem = load_problem(write_problem(tmp_path / "wait", 30.0, 0.0))
    report = runner.run(problem, WAIT, tmp_path / "wait.py")
    assert report.verdict == "time_limit_exceeded"
    assert report.cases[0].message == ("time limit exceeded: the first call ran over 4 s, the 1 s limit plus 3 s for "
                                       "the first compile of its kernels")
    assert report.cases[0].note == ""
    assert report.cases[1].status == "skipped"


def test_a_load_that_compiles_has_the_allowance_too(runner, tmp_path):
    problem = load_problem(write_problem(tmp_path / "wait", 0.0))
    source = "import time\n\ntime.sleep(2.0)  # kernels compiled at import\n\n\n" + WAIT.split("\n\n\n", 1)[1]
    assert runner.run(problem, source, tmp_path / "wait.py").verdict == "accepted"
    plain = load_problem(write_problem(tmp_path / "plain", 0.0, extra=""))
    assert runner.run(plain, source, tmp_path / "wait.py").verdict == "time_limit_exceeded"


def test_a_codestar_problems_first_case_carries_the_note(runner, tmp_path):
    test_code = ("for idx, seconds in enumerate([2.0, 0.0], 1):\n"
                 "    act = user_obj(seconds)\n"
                 "    match, err, _ = compare_outputs(act, ref_obj(seconds))\n"
                 "    cases_results.append({'case_id': idx, 'case_name': f'sleeps {seconds:g} s', 'passed': match,\n"
                 "                          'message': err})\n")
    path = tmp_path / "codestar-wait.json"
    path.write_text(json.dumps({"slug": "codestar-wait", "title": "Wait", "entry_point": "wait",
                                "reference_code": "def wait(seconds):\n    return seconds\n", "test_code": test_code,
                                "time_limit": TIME_LIMIT, "compile_allowance": ALLOWANCE}), encoding="utf-8")
    report = runner.run(load_problem(path), WAIT, tmp_path / "wait.py")
    assert report.verdict == "accepted"
    assert "including the first compile of its kernels" in report.cases[0].note
    assert report.cases[1].note == ""


def test_kata_run_reports_the_note_in_json_and_text(tmp_path):
    folder = write_problem(tmp_path / "wait", 2.0, 0.0)
    solution = tmp_path / "wait.py"
    solution.write_text(WAIT, encoding="utf-8")
    done = subprocess.run([str(KATA), "run", str(solution), "--problem", str(folder), "--json"],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    cases = json.loads(done.stdout)["cases"]
    assert "including the first compile of its kernels" in cases[0]["note"]
    assert cases[1]["note"] == ""
    text = subprocess.run([str(KATA), "run", str(solution), "--problem", str(folder)], capture_output=True,
                          text=True, timeout=240, env={**os.environ, "COLUMNS": "200"})
    assert "including the first compile of its kernels (the 1 s limit applies from the second call)" in text.stdout


# -- on a GPU -----------------------------------------------------------------------------------------

@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_a_codestar_kernel_problems_first_case_on_a_cold_cache_is_graded(tmp_path, monkeypatch):
    """The 8-bit AdamW kernel as a codestar problem with codestar's default 5 s limit: every solution
    worker compiles into a cache of its own, and here the reference's cache is cold too."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton-cache"))
    kata = REPO / "problems" / "quantized-adamw-8bit"
    test_code = ((kata / "cases.py").read_text(encoding="utf-8") +
                 "\nfor idx, (NB,) in enumerate(CORRECTNESS_SHAPES, 1):\n"
                 "    args = make_inputs(NB, seed=idx)\n"
                 "    act = user_obj(*args)\n"
                 "    match, err, _ = compare_outputs(act, ref_obj(*args), atol=atol, rtol=rtol)\n"
                 "    cases_results.append({'case_id': idx, 'case_name': f'{NB} blocks', 'passed': match,\n"
                 "                          'message': err})\n")
    path = tmp_path / "codestar-adamw.json"
    path.write_text(json.dumps({
        "slug": "codestar-adamw", "title": "8-bit AdamW", "entry_point": "quantized_adamw_step", "tags": ["Triton"],
        "reference_code": (kata / "reference.py").read_text(encoding="utf-8"), "test_code": test_code,
        "memory_limit_mb": 2048, "atol": 1e-2, "rtol": 1e-2}), encoding="utf-8")
    problem = load_problem(path)
    assert problem.grading.device == "cuda" and problem.time_limit == 5.0
    ours = REPO / "kernels" / "adamw8bit.py"
    pool = WorkerPool()  # a zygote that has the cold cache in its environment
    try:
        report = Runner(pool).run(problem, ours.read_text(encoding="utf-8"), ours)
    finally:
        pool.close()
    assert report.verdict == "accepted", [(c.status, c.message) for c in report.cases]
    first = report.cases[0]
    print(f"first case: {first.time_ms:.0f} ms; note: {first.note or '(none)'}")
    assert all(not c.note for c in report.cases[1:])
