"""core/grading/runner.py through its public API: Runner.run, Runner.prepare, Runner.case_inputs.

Each test writes a tiny native problem into tmp_path (or copies the sandbox-probe fixture) and grades
it with the session's real workers.
"""

from __future__ import annotations

import os
import shutil
import textwrap
import time
from pathlib import Path

import pytest
from infrakata.core.catalog.loading import load_problem
from infrakata.core.catalog.problem import Case
from infrakata.core.errors import GradingError
from infrakata.core.grading.runner import Runner

FIXTURES = Path(__file__).parents[1] / "fixtures" / "problems"


def write_problem(root: Path, slug: str, reference: str, *, toml: str = "", cases: str | None = None) -> Path:
    """A native problem folder: problem.toml (entry point from the reference's first def), reference.py,
    and cases.py when given (otherwise `toml` holds [[cases]])."""
    folder = root / slug
    folder.mkdir(parents=True)
    reference = textwrap.dedent(reference)
    entry = reference.split("def ", 1)[1].split("(", 1)[0]
    (folder / "problem.toml").write_text(
        f'slug = "{slug}"\ntitle = "{slug}"\nentry_point = "{entry}"\ntime_limit = 1.0\n'
        f"atol = 1e-6\nrtol = 1e-6\n" + textwrap.dedent(toml), encoding="utf-8")
    (folder / "reference.py").write_text(reference, encoding="utf-8")
    if cases is not None:
        (folder / "cases.py").write_text(textwrap.dedent(cases), encoding="utf-8")
    return folder


def bump_mtime(path: Path) -> None:
    """A later modification time, whatever the file system's clock granularity."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))


def statuses(report) -> list[tuple[int, str, str]]:
    return [(c.id, c.name, c.status) for c in report.cases]


THREE_INLINE_CASES = """
[[cases]]
name = "one"
args = [1]
[[cases]]
name = "two"
args = [2]
[[cases]]
name = "three"
args = [3]
"""

# Counts its calls in a file beside (not inside) the problem's folder: every file in the folder is
# part of the problem's version.
COUNTING_REFERENCE = """
from pathlib import Path


def double(x):
    log = Path(__file__).resolve().parent.parent / "reference-calls.log"
    with log.open("a") as calls:
        calls.write("call\\n")
    return FACTOR * x


FACTOR = 2
"""


def calls_made(root: Path) -> int:
    log = root / "reference-calls.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_reference_outputs_are_computed_once_per_problem_version(runner, tmp_path):
    folder = write_problem(tmp_path, "counted-double", COUNTING_REFERENCE, toml=THREE_INLINE_CASES)
    problem = load_problem(folder)
    solution = "def double(x):\n    return 2 * x\n"

    assert runner.run(problem, solution, tmp_path / "a.py").verdict == "accepted"
    assert calls_made(tmp_path) == 3
    assert runner.run(problem, solution, tmp_path / "a.py").verdict == "accepted"
    assert runner.prepare(problem) is runner.prepare(problem)
    assert calls_made(tmp_path) == 3, "the reference ran again for an unchanged problem"

    bump_mtime(folder / "reference.py")
    assert runner.run(problem, solution, tmp_path / "a.py").verdict == "accepted"
    assert calls_made(tmp_path) == 6, "touching reference.py did not recompute the reference's outputs"


def test_a_changed_reference_changes_the_expected_outputs(runner, tmp_path):
    folder = write_problem(tmp_path, "changing-double", COUNTING_REFERENCE, toml=THREE_INLINE_CASES)
    problem = load_problem(folder)
    solution = "def double(x):\n    return 2 * x\n"
    assert runner.run(problem, solution, tmp_path / "a.py").verdict == "accepted"

    reference = folder / "reference.py"
    before = reference.stat().st_mtime_ns
    reference.write_text(COUNTING_REFERENCE.replace("FACTOR = 2", "FACTOR = 3"), encoding="utf-8")
    os.utime(reference, ns=(before, before + 2_000_000_000))
    # The same Problem object: the runner notices the change on disk itself.
    report = runner.run(problem, solution, tmp_path / "a.py")
    assert report.verdict == "wrong_answer"
    assert [c.expected for c in report.cases[:1]] == ["3"]


def test_a_file_added_to_the_problem_is_a_new_version(runner, tmp_path):
    folder = write_problem(tmp_path, "grown-double", COUNTING_REFERENCE, toml=THREE_INLINE_CASES)
    problem = load_problem(folder)
    runner.prepare(problem)
    (folder / "README.md").write_text("Double x.\n", encoding="utf-8")
    runner.prepare(problem)
    assert calls_made(tmp_path) == 6


TENSOR_CASES = """
import torch


def cases():
    gen = torch.Generator().manual_seed(0)
    return [{"name": "row", "args": (torch.randn(5, generator=gen),)},
            {"name": "as keyword", "args": (), "kwargs": {"x": torch.randn(2, 3, generator=gen)}}]
"""

SUM_REFERENCE = """
def total(x):
    return x.sum()
"""

# Right output, but the input is zeroed afterwards.
SUMS_AND_CLEARS = "def total(x):\n    result = x.sum().clone()\n    x.zero_()\n    return result\n"


def test_an_argument_modified_in_place_is_reported_by_name(runner, tmp_path):
    problem = load_problem(write_problem(tmp_path, "frozen-sum", SUM_REFERENCE, cases=TENSOR_CASES))
    assert runner.run(problem, "def total(x):\n    return x.sum()\n", tmp_path / "a.py").verdict == "accepted"

    report = runner.run(problem, SUMS_AND_CLEARS, tmp_path / "a.py")
    assert report.verdict == "wrong_answer"
    assert [c.status for c in report.cases] == ["failed", "failed"]
    for case in report.cases:  # positional and keyword alike
        assert "argument 'x' was modified in place, which this problem does not allow" in case.message
        assert case.line == 3  # `x.zero_()`: the line that wrote it


def test_a_failing_case_is_made_again_to_find_the_line_but_counts_once(runner, tmp_path):
    """The line that wrote a wrong argument is found by making the failed call again, recorded in full:
    what the solution printed and how long it took are the first call's, said once."""
    problem = load_problem(write_problem(tmp_path, "frozen-sum-chatty", SUM_REFERENCE, cases=TENSOR_CASES))
    chatty = "def total(x):\n    print('summing')\n    result = x.sum().clone()\n    x.zero_()\n    return result\n"
    report = runner.run(problem, chatty, tmp_path / "a.py")
    assert [(c.status, c.line) for c in report.cases] == [("failed", 4), ("failed", 4)]
    assert report.output == "summing\n" * 2


# Clears its argument on every call, and its second call (the first case's replay) never returns.
SLOW_AFTER_FIRST_CALL = """
calls = []


def total(x):
    calls.append(1)
    while len(calls) == 2:
        pass
    result = x.sum().clone()
    x.zero_()
    return result
"""


def test_a_replay_that_never_returns_is_stopped_without_stopping_the_run(runner, tmp_path):
    problem = load_problem(write_problem(tmp_path, "frozen-sum-stalls", SUM_REFERENCE, cases=TENSOR_CASES))
    report = runner.run(problem, SLOW_AFTER_FIRST_CALL, tmp_path / "a.py")
    # Each case is judged on its own first call: the replay's timeout is no case's verdict, skips none,
    # and each case still has a line (the entry point's def: the replay saw nothing).
    assert [c.status for c in report.cases] == ["failed", "failed"]
    assert report.verdict == "wrong_answer"
    assert [c.line for c in report.cases] == [5, 5]


def test_an_argument_the_problem_declares_mutable_may_change(runner, tmp_path):
    problem = load_problem(write_problem(tmp_path, "mutable-sum", SUM_REFERENCE, cases=TENSOR_CASES,
                                         toml='[grading]\nmutable = ["x"]\n'))
    assert runner.run(problem, SUMS_AND_CLEARS, tmp_path / "a.py").verdict == "accepted"


ACCUMULATE_REFERENCE = """
def accumulate(total, x):
    total.add_(x)
    return total.sum()
"""

ACCUMULATE_CASES = """
import torch


def cases():
    return [{"name": "ones", "args": (torch.zeros(4), torch.ones(4))},
            {"name": "ramp", "args": (torch.ones(3), torch.arange(3.0))}]
"""


def test_a_state_problem_grades_the_argument_after_the_call(runner, tmp_path):
    problem = load_problem(write_problem(tmp_path, "stateful-accumulate", ACCUMULATE_REFERENCE,
                                         cases=ACCUMULATE_CASES, toml='[grading]\nstate = ["total"]\n'))
    good = "def accumulate(total, x):\n    total += x\n    return total.sum()\n"
    assert runner.run(problem, good, tmp_path / "a.py").verdict == "accepted"

    # The right return value, but `total` is left as it was: only grading the state catches it.
    functional = "def accumulate(total, x):\n    return (total + x).sum()\n"
    report = runner.run(problem, functional, tmp_path / "a.py")
    assert report.verdict == "wrong_answer"
    assert report.cases[0].message.startswith("total after the call")
    assert "modified in place" not in report.cases[0].message


def test_the_state_of_gradient_accumulation_is_graded(runner, tmp_path):
    folder = tmp_path / "gradient-accumulation"
    shutil.copytree(Path(__file__).resolve().parents[2] / "problems" / "gradient-accumulation", folder)
    problem = load_problem(folder)
    reference = (folder / "reference.py").read_text(encoding="utf-8")
    assert runner.run(problem, reference, tmp_path / "a.py").verdict == "accepted"
    # The right average loss, computed on copies: the model and the optimizer are left untouched.
    on_copies = ("import copy\n" + reference.replace("def gradient_accumulation_step(", "def _train(") +
                 "\n\ndef gradient_accumulation_step(model, optimizer, batches, loss_fn, accumulation_steps):\n"
                 "    shadow = copy.deepcopy(model)\n"
                 "    shadow_optimizer = type(optimizer)(shadow.parameters(), **optimizer.defaults)\n"
                 "    return _train(shadow, shadow_optimizer, batches, loss_fn, accumulation_steps)\n")
    report = runner.run(problem, on_copies, tmp_path / "a.py")
    assert report.verdict == "wrong_answer"
    assert report.cases[0].message.startswith(("model after the call", "optimizer after the call")), \
        report.cases[0].message


@pytest.mark.parametrize(("source", "verdict", "words"), [
    ("def scale(x, factor)\n    return x * factor\n", "syntax_error", "syntax error"),
    ("import subprocess\ndef scale(x, factor):\n    return x * factor\n", "forbidden", "forbidden"),
])
def test_a_static_finding_lists_every_case_as_not_run(runner, tmp_path, source, verdict, words):
    folder = tmp_path / "sandbox-probe"
    shutil.copytree(FIXTURES / "sandbox-probe", folder)
    problem = load_problem(folder)
    report = runner.run(problem, source, tmp_path / "a.py")
    assert report.verdict == verdict and report.findings
    assert statuses(report) == [(1, "small", "skipped"), (2, "square", "skipped"), (3, "zero factor", "skipped")]
    assert {c.message for c in report.cases} == {f"not run: {words}"}


def test_a_reference_that_fails_on_a_case_is_a_grading_error_naming_it(runner, tmp_path):
    reference = """
    def root(x):
        if x < 0:
            raise ValueError("no real root")
        return x ** 0.5
    """
    toml = '[[cases]]\nname = "four"\nargs = [4.0]\n[[cases]]\nname = "minus one"\nargs = [-1.0]\n'
    problem = load_problem(write_problem(tmp_path, "failing-root", reference, toml=toml))
    with pytest.raises(GradingError, match=r"failing-root: the reference failed on case 'minus one': "
                                           r"ValueError: no real root"):
        runner.run(problem, "def root(x):\n    return x ** 0.5\n", tmp_path / "a.py")


def test_a_case_that_does_not_fit_the_signature_is_a_grading_error_naming_it(runner, tmp_path):
    toml = '[[cases]]\nname = "fits"\nargs = [1]\n[[cases]]\nname = "one too many"\nargs = [1, 2]\n'
    problem = load_problem(write_problem(tmp_path, "unfit-double", "def double(x):\n    return 2 * x\n", toml=toml))
    with pytest.raises(GradingError, match=r"unfit-double: case 'one too many' does not fit double\(x\)"):
        runner.prepare(problem)


def test_cases_py_that_fails_is_a_grading_error_naming_it(runner, tmp_path):
    folder = write_problem(tmp_path, "broken-cases", "def double(x):\n    return 2 * x\n",
                           cases="def cases():\n    return [{'name': 'a', 'args': (1,)}, {'name': 'no args'}]\n")
    with pytest.raises(GradingError, match=r"cases\.py: cases\(\) failed: KeyError: 'args'") as raised:
        runner.case_inputs(load_problem(folder))
    assert str(folder / "cases.py") in str(raised.value)


def test_what_the_solution_prints_is_in_the_report(runner, tmp_path):
    problem = load_problem(write_problem(tmp_path, "chatty-double", "def double(x):\n    return 2 * x\n",
                                         toml=THREE_INLINE_CASES))
    source = "def double(x):\n    print('doubling', x)\n    return 2 * x\n"
    report = runner.run(problem, source, tmp_path / "a.py")
    assert report.verdict == "accepted"
    assert report.output == "doubling 1\ndoubling 2\ndoubling 3\n"


def test_what_the_solution_prints_while_loading_is_in_the_report(runner, tmp_path):
    problem = load_problem(write_problem(tmp_path, "loud-double", "def double(x):\n    return 2 * x\n",
                                         toml=THREE_INLINE_CASES))
    source = "print('loading the solution')\ndef double(x):\n    return 2 * x\n"
    report = runner.run(problem, source, tmp_path / "a.py")
    assert report.verdict == "accepted"
    assert "loading the solution" in report.output


# cases.py prints at its import: in a worker, that print is in the run's output.
MODULE_CASES = """
import torch

print("cases.py ran")


class Scale(torch.nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = torch.nn.Parameter(torch.tensor(factor))

    def forward(self, x):
        return self.factor * x


def cases():
    return [{"name": "times 3", "args": (Scale(3.0), torch.ones(2))},
            {"name": "times 4", "args": (Scale(4.0), torch.ones(3))}]
"""


def test_an_input_of_a_class_of_cases_py_reaches_the_solution_which_loads_cases_py_then(runner, tmp_path):
    problem = load_problem(write_problem(tmp_path, "scaled", "def scaled(module, x):\n    return module(x).detach()\n",
                                         cases=MODULE_CASES))
    source = "def scaled(module, x):\n    print('got a', type(module).__name__)\n    return module(x).detach()\n"
    report = runner.run(problem, source, tmp_path / "a.py")
    assert report.verdict == "accepted"
    assert report.output == "cases.py ran\ngot a Scale\ngot a Scale\n"


def test_a_worker_whose_inputs_need_nothing_of_cases_py_never_loads_it(runner, tmp_path):
    cases = 'print("cases.py ran")\n\n\ndef cases():\n    return [{"name": "one", "args": (1,)}]\n'
    problem = load_problem(write_problem(tmp_path, "plain-double", "def double(x):\n    return 2 * x\n",
                                         cases=cases))
    report = runner.run(problem, "def double(x):\n    print('doubling', x)\n    return 2 * x\n", tmp_path / "a.py")
    assert report.verdict == "accepted"
    assert report.output == "doubling 1\n"


DRAW_S = 1.0
SLOW_FRESH_CASES = f"""
import time


def cases():
    return [{{"name": "one", "args": (1,)}}]


def fresh(seed):
    time.sleep({DRAW_S})
    return {{"args": (SIGN * seed,)}}


SIGN = 1
"""
PRINTING_DOUBLE = "def double(x):\n    print(x)\n    return 2 * x\n"


def test_the_servers_runner_draws_the_next_fresh_case_after_a_run_and_the_next_save_finds_it_drawn(pool, tmp_path):
    problem = load_problem(write_problem(tmp_path, "slow-fresh", "def double(x):\n    return 2 * x\n",
                                         cases=SLOW_FRESH_CASES))
    runner = Runner(pool, fresh_ahead=True)
    try:
        reports = [runner.run(problem, PRINTING_DOUBLE, tmp_path / "a.py")]
        for _ in range(2):
            time.sleep(2 * DRAW_S)  # the draw for the next run, on a thread of its own
            started = time.perf_counter()
            reports.append(runner.run(problem, PRINTING_DOUBLE, tmp_path / "a.py"))
            assert time.perf_counter() - started < DRAW_S
    finally:
        runner.close()
    assert [r.verdict for r in reports] == ["accepted"] * 3
    drawn = [int(r.output.split()[1]) for r in reports]  # what each run's fresh case was given
    assert len(set(drawn)) == 3  # still new at every grading


def test_a_fresh_case_drawn_ahead_is_not_used_once_the_problem_has_changed(pool, tmp_path):
    folder = write_problem(tmp_path, "changing-fresh", "def double(x):\n    return 2 * x\n", cases=SLOW_FRESH_CASES)
    runner = Runner(pool, fresh_ahead=True)
    try:
        first = runner.run(load_problem(folder), PRINTING_DOUBLE, tmp_path / "a.py")
        cases = folder / "cases.py"
        cases.write_text(cases.read_text().replace("SIGN = 1", "SIGN = -1"))
        bump_mtime(cases)
        second = runner.run(load_problem(folder), PRINTING_DOUBLE, tmp_path / "a.py")
    finally:
        runner.close()
    assert int(first.output.split()[1]) > 0 and int(second.output.split()[1]) < 0


def test_case_ids_are_one_based_in_order(runner, tmp_path):
    problem = load_problem(write_problem(tmp_path, "ordered-double", "def double(x):\n    return 2 * x\n",
                                         toml=THREE_INLINE_CASES))
    assert [case.name for case in runner.case_inputs(problem)] == ["one", "two", "three"]
    report = runner.run(problem, "def double(x):\n    return 2 * x if x != 2 else 0\n", tmp_path / "a.py")
    assert statuses(report) == [(1, "one", "passed"), (2, "two", "failed"), (3, "three", "passed")]


def test_generated_cases_without_names_are_numbered_from_one(runner, tmp_path):
    folder = write_problem(tmp_path, "unnamed-double", "def double(x):\n    return 2 * x\n",
                           cases="def cases():\n    return [{'args': (5,)}, {'args': (), 'kwargs': {'x': 6}}]\n")
    assert runner.case_inputs(load_problem(folder)) == [Case("case 1", (5,), {}), Case("case 2", (), {"x": 6})]
