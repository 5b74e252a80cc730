"""core/grading/kinds/codestar.py through Runner.run: a codestar JSON written into tmp_path, loaded with
core.catalog.load_problem, its test_code run unchanged against real workers."""

from __future__ import annotations

import json
import re
import textwrap
import time
from pathlib import Path

import pytest
from infrakata.core.catalog.loading import load_problem
from infrakata.core.errors import GradingError, ProblemError
from infrakata.core.limits import wall_backstop

# The seeds' test_code (../shared/seeds/codestar-*.json), over three integer cases.
SEED_TEST_CODE = """\
cases = [
    ('one', 1),
    ('two', 2),
    ('three', 3),
]
for idx, (name, *args) in enumerate(cases, 1):
    t0 = time.time()
    try:
        exp = ref_obj(*args)
        act = user_obj(*args)
        match, err, max_diff = compare_outputs(act, exp, atol=atol, rtol=rtol)
        passed, msg = match, err
    except Exception as e:
        passed, msg = False, f"Runtime Exception: {str(e)}"
        act, exp, max_diff = None, None, None
    cases_results.append({
        "case_id": idx, "case_name": name, "passed": passed,
        "time_ms": round((time.time() - t0) * 1000, 2), "message": msg,
        "user_output_summary": summarize_obj(act) if act is not None else None,
        "expected_summary": summarize_obj(exp) if exp is not None else None,
        "max_diff": max_diff,
    })
"""

REFERENCE = "def triple(x):\n    return 3 * x\n"
GOOD = "def triple(x):\n    return 3 * x\n"


def write_codestar(folder: Path, name: str = "codestar-triple", **fields) -> Path:
    data = {"slug": name, "title": "Triple", "entry_point": "triple", "starter_code": "def triple(x):\n    pass\n",
            "reference_code": REFERENCE, "test_code": SEED_TEST_CODE, "forbidden_modules": ["subprocess"],
            "forbidden_calls": [], "time_limit": 1.0, "memory_limit_mb": 512, "atol": 1e-6, "rtol": 1e-6}
    data.update(fields)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def grade(runner, path: Path, source: str):
    return runner.run(load_problem(path), source, path.parent / "solution.py")


def test_the_seed_protocol_accepts_the_reference(runner, tmp_path):
    report = grade(runner, write_codestar(tmp_path), GOOD)
    assert report.verdict == "accepted"
    assert [(c.id, c.name, c.status) for c in report.cases] == [(1, "one", "passed"), (2, "two", "passed"),
                                                                (3, "three", "passed")]


GLOBALS_TEST_CODE = """\
import types
checks = {
    "ref_obj": ref_obj(2) == 6,
    "user_obj": user_obj(2) == 7,
    "compare_outputs": compare_outputs(6, 6, atol=atol, rtol=rtol)[0] and not compare_outputs(7, 6)[0],
    "summarize_obj": summarize_obj(6) == "6",
    "cases_results": cases_results == [],
    "time": isinstance(time, types.ModuleType) and time.time() > 0,
    "atol": atol == 0.125,
    "rtol": rtol == 0.25,
}
cases_results.append({"case_id": 1, "case_name": "globals", "passed": all(checks.values()),
                      "message": "wrong globals: " + ", ".join(k for k, ok in checks.items() if not ok)})
"""


def test_test_code_runs_with_the_globals_it_expects(runner, tmp_path):
    path = write_codestar(tmp_path, test_code=GLOBALS_TEST_CODE, atol=0.125, rtol=0.25)
    report = grade(runner, path, "def triple(x):\n    return 3 * x + 1\n")
    assert [(c.status, c.message) for c in report.cases] == [("passed", "")]


def test_a_failing_compare_is_a_failed_case_with_its_message_and_summaries(runner, tmp_path):
    source = "import torch\n\n\ndef triple(x):\n    return 3 * x if x != 2 else 7\n"
    report = grade(runner, write_codestar(tmp_path), source)
    assert report.verdict == "wrong_answer"
    assert [c.status for c in report.cases] == ["passed", "failed", "passed"]
    failed = report.cases[1]
    assert failed.message and "7" in failed.message and "6" in failed.message
    assert (failed.expected, failed.actual) == ("6", "7")
    assert failed.line == 5  # the return that gave it, through test_code's user_obj too


def test_a_solution_that_raises_is_an_error_case_on_the_solutions_line(runner, tmp_path):
    source = "def helper(x):\n    return x / (x - 2)\n\n\ndef triple(x):\n    return 3 * x + 0 * helper(x)\n"
    report = grade(runner, write_codestar(tmp_path), source)
    assert report.verdict == "runtime_error"
    assert [c.status for c in report.cases] == ["passed", "error", "passed"]
    error = report.cases[1]
    assert error.line == 2 and "ZeroDivisionError" in error.message


def test_what_the_solution_prints_is_in_the_report(runner, tmp_path):
    source = "print('loading')\n\n\ndef triple(x):\n    print('tripling', x)\n    return 3 * x\n"
    report = grade(runner, write_codestar(tmp_path), source)
    assert report.verdict == "accepted"
    assert report.output == "loading\ntripling 1\ntripling 2\ntripling 3\n"


# The reference's answers carry a secret only reference_code knows; the solution searches its whole
# process (every container the garbage collector tracks, every function) for an answer or the reference.
SECRET_REFERENCE = "SECRET = 'q7zk' + 'x2'\n\n\ndef triple(x):\n    return f'{SECRET}:{3 * x}'\n"
SEARCHING_SOLUTION = """\
import gc
import re
import types


def _found(value, answer):
    if isinstance(value, str):
        return answer.fullmatch(value) is not None
    return isinstance(value, types.FunctionType) and 'reference_code' in value.__code__.co_filename


def triple(x, hint=None):
    answer = re.compile('[a-z0-9]{6}:' + str(3 * x))
    # Containers of plain values are not tracked by the collector: look one level inside them too.
    for obj in gc.get_objects():
        for value in gc.get_referents(obj):
            inner = gc.get_referents(value) if isinstance(value, (dict, tuple)) and not gc.is_tracked(value) else ()
            for candidate in (value, *inner):
                if _found(candidate, answer):
                    return candidate if isinstance(candidate, str) else 'found the reference'
    return 'nothing found'
"""
LOOKING_TEST_CODE = """\
for idx, x in enumerate([1, 2], 1):
    exp = ref_obj(x)
    act = user_obj(x, hint=exp) if LEAK else user_obj(x)
    cases_results.append({"case_id": idx, "case_name": f"x={x}", "passed": act != exp, "message": act})
"""


@pytest.mark.parametrize("leak", [False, True])
def test_the_expected_outputs_never_reach_the_solutions_process(runner, tmp_path, leak):
    path = write_codestar(tmp_path, reference_code=SECRET_REFERENCE, time_limit=20.0,  # the search takes a while
                          test_code=f"LEAK = {leak}\n" + LOOKING_TEST_CODE)
    report = grade(runner, path, SEARCHING_SOLUTION)
    if leak:  # the control: an answer that is in the process is found
        assert [c.message for c in report.cases] == ["q7zkx2:3", "q7zkx2:6"]
    else:
        assert [(c.status, c.message) for c in report.cases] == [("passed", "")] * 2
        assert report.verdict == "accepted"


def test_a_test_code_that_raises_is_a_grading_error_naming_the_json(runner, tmp_path):
    path = write_codestar(tmp_path, test_code="user_obj(1)\nraise RuntimeError('the harness broke')\n")
    with pytest.raises(GradingError) as raised:
        grade(runner, path, GOOD)
    assert str(raised.value) == f"{path}: test_code failed: RuntimeError: the harness broke"


def test_a_run_stops_at_its_first_timeout(runner, tmp_path):
    source = "import time\n\n\ndef triple(x):\n    if x == 2:\n        time.sleep(60)\n    return 3 * x\n"
    path = write_codestar(tmp_path, time_limit=0.5)
    started = time.monotonic()
    report = grade(runner, path, source)
    elapsed = time.monotonic() - started
    assert report.verdict == "time_limit_exceeded"
    assert [c.status for c in report.cases] == ["passed", "timeout", "skipped"]
    assert report.cases[2].message == "not run: case 2 exceeded the time limit; a run stops at its first timeout"
    assert elapsed < wall_backstop(0.5) + 3.0  # not the 60 s sleep


def _line(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


def test_a_missing_field_is_named(tmp_path):
    path = write_codestar(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["test_code"]
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    with pytest.raises(ProblemError) as raised:
        load_problem(path)
    assert (raised.value.path, raised.value.field, raised.value.message) == (path, "test_code", "is required")


def test_a_field_of_the_wrong_type_is_named_with_its_line(tmp_path):
    path = write_codestar(tmp_path, time_limit="fast")
    with pytest.raises(ProblemError) as raised:
        load_problem(path)
    assert (raised.value.path, raised.value.field, raised.value.line) == (path, "time_limit",
                                                                          _line(path, '"time_limit"'))
    assert str(raised.value).startswith(f"{path}:{raised.value.line}: field 'time_limit': must be")


def test_bad_json_is_named_with_its_line(tmp_path):
    path = write_codestar(tmp_path)
    text = path.read_text(encoding="utf-8").replace('"title": "Triple",', '"title": "Triple"')
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProblemError) as raised:
        load_problem(path)
    assert raised.value.path == path and raised.value.message.startswith("invalid JSON")
    assert raised.value.line == _line(path, '"entry_point"')  # where the missing comma shows


def test_a_test_code_that_does_not_compile_is_named_with_its_line(tmp_path):
    path = write_codestar(tmp_path, test_code="for x in [1, 2]:\n    user_obj(x\n")
    with pytest.raises(ProblemError) as raised:
        load_problem(path)
    error = raised.value
    assert (error.path, error.field, error.line) == (path, "test_code", _line(path, '"test_code"'))
    assert re.search(r"does not compile: .* \(line 2 of the field\)", error.message), error.message


def test_a_reference_code_that_does_not_define_the_entry_point_is_a_grading_error(runner, tmp_path):
    path = write_codestar(tmp_path, reference_code=textwrap.dedent("""\
        def quadruple(x):
            return 4 * x
        """))
    with pytest.raises(GradingError, match=re.escape(f"{path}: reference_code defines no 'triple'")):
        grade(runner, path, GOOD)
