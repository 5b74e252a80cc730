"""Torch-free workers (SolutionSpec.torch_free): a run whose solution, problem code and rules import nothing
beyond Python's standard library is forked from a zygote that never imported torch, whose fork and exit
cost a millisecond instead of twenty; any other run gets the torch zygote's worker as before. Real workers.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from infrakata.core.catalog.loading import Catalog, load_problem
from infrakata.core.grading.calls import TORCH_AFTER_ALL, solution_spec
from infrakata.core.grading.runner import Runner
from infrakata.core.sandbox import procfs
from infrakata.core.sandbox.pool import WorkerPool
from infrakata.core.sandbox.protocol import TORCH_FREE

INLINE_CASES = '[[cases]]\nname = "one"\nargs = [1]\n[[cases]]\nname = "two"\nargs = [2]\n'


def problem_at(root: Path, reference: str, cases_py: str | None = None, toml: str = INLINE_CASES) -> Path:
    folder = root / "doubling"
    folder.mkdir()
    (folder / "problem.toml").write_text('slug = "doubling"\ntitle = "doubling"\nentry_point = "double"\n'
                                         'time_limit = 5.0\n' + ("" if cases_py else toml), encoding="utf-8")
    (folder / "reference.py").write_text(textwrap.dedent(reference), encoding="utf-8")
    if cases_py is not None:
        (folder / "cases.py").write_text(textwrap.dedent(cases_py), encoding="utf-8")
    return folder


PLAIN_REFERENCE = "def double(x):\n    return 2 * x\n"
# Accepted only where torch is not loaded in the worker: it answers the doubling off by one otherwise.
ONLY_WITHOUT_TORCH = "import sys\n\ndef double(x):\n    return 2 * x + ('torch' in sys.modules)\n"


def test_a_run_that_needs_no_torch_has_a_worker_without_it(runner: Runner, tmp_path: Path) -> None:
    problem = load_problem(problem_at(tmp_path, PLAIN_REFERENCE))
    report = runner.run(problem, ONLY_WITHOUT_TORCH, tmp_path / "solution.py")
    assert report.verdict == "accepted", [c.message for c in report.cases]


@pytest.mark.parametrize("solution", [
    "import torch\n\ndef double(x):\n    return int(torch.tensor(x) * 2)\n",
    "def double(x):\n    from torch import tensor\n    return int(tensor(x) * 2)\n",
    "import importlib\n\ndef double(x):\n    return int(importlib.import_module('torch').tensor(x) * 2)\n",
], ids=["import", "import inside the function", "import_module"])
def test_a_solution_that_uses_torch_is_given_a_worker_with_it(runner: Runner, tmp_path: Path, solution: str) -> None:
    """Not a torch-free worker that would import torch under the memory limit of one without it."""
    problem = load_problem(problem_at(tmp_path, PLAIN_REFERENCE))
    report = runner.run(problem, solution, tmp_path / "solution.py")
    assert report.verdict == "accepted", [c.message for c in report.cases]


def test_inputs_made_with_torch_go_to_a_worker_with_torch(runner: Runner, tmp_path: Path) -> None:
    """The solution imports nothing, but its inputs are tensors: the problem's code decides too."""
    cases = """
        import torch

        def cases():
            return [{"name": "a vector", "args": [torch.arange(4.0)]}]
    """
    problem = load_problem(problem_at(tmp_path, PLAIN_REFERENCE, cases))
    assert not solution_spec(problem, PLAIN_REFERENCE, "s.py", calls=2, cuda=False).torch_free
    report = runner.run(problem, PLAIN_REFERENCE, tmp_path / "solution.py")
    assert report.verdict == "accepted", [c.message for c in report.cases]


def test_which_catalogue_katas_run_without_torch(catalog: Catalog, seeds: Path) -> None:
    def torch_free(problem_name: str, source: str | None = None) -> bool:
        problem = catalog.get(problem_name)
        return solution_spec(problem, source or problem.reference_source, "s.py", calls=2, cuda=False).torch_free

    assert torch_free("adam-optimizer-memory-bytes")
    with_numpy = "import numpy\n\ndef adam_memory_bytes(n):\n    return 12 * n\n"
    assert not torch_free("adam-optimizer-memory-bytes", with_numpy)
    assert not torch_free("tiled-matmul")  # a Triton kata: its rules (launches, eager work) are torch's
    # Its files import torch, nn and F, and never read them.
    codestar = load_problem(seeds / "codestar-adam-optimizer-memory-bytes.json")
    assert solution_spec(codestar, codestar.reference_source, "s.py", calls=2, cuda=False).torch_free
    reads_f = codestar.reference_source.replace("return num_params * 12", "return F.relu(num_params) * 12")
    assert reads_f != codestar.reference_source
    assert not solution_spec(codestar, reads_f, "s.py", calls=2, cuda=False).torch_free


# Imports torch as boilerplate; accepted only where torch is not really loaded in the worker.
UNREAD_TORCH = """\
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


def double(x):
    with open("/proc/self/maps") as maps:
        return 2 * x + ("libtorch" in maps.read())
"""


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc")
def test_torch_imported_and_never_read_is_not_loaded(runner: Runner, tmp_path: Path) -> None:
    problem = load_problem(problem_at(tmp_path, PLAIN_REFERENCE))
    assert solution_spec(problem, UNREAD_TORCH, "s.py", calls=2, cuda=False).torch_free
    report = runner.run(problem, UNREAD_TORCH, tmp_path / "solution.py")
    assert report.verdict == "accepted", [c.message for c in report.cases]


@pytest.mark.parametrize("solution", [
    "import torch\nimport sys\n\ndef double(x):\n    return int(sys.modules['torch'].tensor(x) * 2)\n",
    "import torch\n\ndef double(x):\n    return int(globals()['torch'].tensor(x) * 2)\n",
], ids=["sys.modules", "globals()"])
def test_torch_that_may_be_read_by_a_string_is_loaded(runner: Runner, tmp_path: Path, solution: str) -> None:
    problem = load_problem(problem_at(tmp_path, PLAIN_REFERENCE))
    assert not solution_spec(problem, solution, "s.py", calls=2, cuda=False).torch_free
    report = runner.run(problem, solution, tmp_path / "solution.py")
    assert report.verdict == "accepted", [c.message for c in report.cases]


def test_torch_reached_past_the_static_check_is_graded_with_torch(runner: Runner, tmp_path: Path) -> None:
    """The solution reads torch through a frame's globals, which no static check follows: the torch-free
    worker meets its stand-in, and the run is given to a worker with torch; the case says it took that."""
    solution = textwrap.dedent("""\
        import torch


        def double(x):
            try:
                raise ValueError
            except ValueError as error:
                names = error.__traceback__.tb_frame.f_globals
            return int(names["torch"].tensor(x) * 2)
    """)
    problem = load_problem(problem_at(tmp_path, PLAIN_REFERENCE))
    assert solution_spec(problem, solution, "s.py", calls=2, cuda=False).torch_free  # the guess is wrong
    report = runner.run(problem, solution, tmp_path / "solution.py")
    assert report.verdict == "accepted", [c.message for c in report.cases]
    assert TORCH_AFTER_ALL in report.cases[0].note
    wrong = runner.run(problem, solution.replace("* 2)", "* 3)"), tmp_path / "solution.py")
    assert wrong.verdict == "wrong_answer" and "expected 2, got 3" in wrong.cases[0].message


def test_a_solution_that_catches_the_stand_ins_error_is_still_graded_with_torch(runner: Runner,
                                                                                 tmp_path: Path) -> None:
    """Its answer without torch would be wrong: whatever the code makes of the error, the run is redone."""
    solution = textwrap.dedent("""\
        import torch


        def double(x):
            try:
                return int(double.__globals__["torch"].ones(1)) * 2 * x
            except Exception:
                return -1
    """)
    problem = load_problem(problem_at(tmp_path, PLAIN_REFERENCE))
    assert solution_spec(problem, solution, "s.py", calls=2, cuda=False).torch_free
    report = runner.run(problem, solution, tmp_path / "solution.py")
    assert report.verdict == "accepted", [c.message for c in report.cases]


HELPER = "import torch\n\n\ndef doubled(x):\n    return int(torch.as_tensor(x) * 2)\n"
BY_PATH = """\
import importlib.util


def load(path):
    spec = importlib.util.spec_from_file_location("helper", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
"""


def test_a_problem_whose_code_loads_a_torch_helper_by_path_grades(runner: Runner, tmp_path: Path) -> None:
    """Its reference and cases.py load a shared helper by path (as an outside problem set's do), the helper
    importing torch: no import in their text says so, and the verdicts are the same as with torch."""
    (tmp_path / "helper.py").write_text(HELPER, encoding="utf-8")
    helper = str(tmp_path / "helper.py")
    reference = BY_PATH + f"\nhelper = load({helper!r})\n\n\ndef double(x):\n    return helper.doubled(x)\n"
    cases = BY_PATH + f"\nhelper = load({helper!r})\n\n\ndef cases():\n" \
        "    return [{'name': f'x={x}', 'args': [helper.torch.tensor(x)]} for x in (1, 2, 3)]\n"
    problem = load_problem(problem_at(tmp_path, reference, cases))
    right = "def double(x):\n    return int(x) * 2\n"
    assert runner.run(problem, right, tmp_path / "s.py").verdict == "accepted"
    off = runner.run(problem, "def double(x):\n    return int(x) * 2 + (int(x) == 3)\n", tmp_path / "s.py")
    assert off.verdict == "wrong_answer" and [c.status for c in off.cases] == ["passed", "passed", "failed"]


def test_a_solution_that_loads_a_torch_helper_by_path_grades(runner: Runner, tmp_path: Path) -> None:
    """The solution writes a helper that imports torch into its own folder and loads it by path."""
    solution = BY_PATH + textwrap.dedent(f"""\
        import os

        path = os.path.join(os.environ["TMPDIR"], "helper.py")
        with open(path, "w") as file:
            file.write({HELPER!r})
        helper = load(path)


        def double(x):
            return helper.doubled(x)
    """)
    problem = load_problem(problem_at(tmp_path, PLAIN_REFERENCE))
    assert solution_spec(problem, solution, "s.py", calls=2, cuda=False).torch_free  # the guess is wrong
    report = runner.run(problem, solution, tmp_path / "solution.py")
    assert report.verdict == "accepted", [c.message for c in report.cases]
    wrong = runner.run(problem, solution.replace("return helper.doubled(x)", "return helper.doubled(x) + 1"),
                       tmp_path / "solution.py")
    assert wrong.verdict == "wrong_answer", [c.message for c in wrong.cases]


def test_a_torch_module_that_does_not_exist_fails_to_load_as_it_would_with_torch(runner: Runner,
                                                                                  tmp_path: Path) -> None:
    problem = load_problem(problem_at(tmp_path, PLAIN_REFERENCE))
    report = runner.run(problem, "import torch.nnn\n\ndef double(x):\n    return 2 * x\n", tmp_path / "s.py")
    assert report.verdict == "runtime_error"
    assert "No module named 'torch.nnn'" in report.cases[0].message


def _torch_free_zygotes() -> set[int]:
    """The torch-free zygotes among this process's descendants, and their spares (forks of them)."""
    found = set()
    for pid in procfs.tree(os.getpid()):
        try:
            if TORCH_FREE.encode() in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"):
                found.add(pid)
        except OSError:  # it has exited meanwhile
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads /proc")
def test_the_pool_starts_its_torch_free_zygote_when_needed_and_ends_it_with_itself(tmp_path: Path) -> None:
    pool = WorkerPool()
    try:
        before = _torch_free_zygotes()
        problem = load_problem(problem_at(tmp_path, PLAIN_REFERENCE))
        assert Runner(pool).run(problem, PLAIN_REFERENCE, tmp_path / "s.py").verdict == "accepted"
        [zygote] = (_torch_free_zygotes() - before) & set(procfs.children(os.getpid()))  # started by this pool
        # Its family only: another pool's zygote may fork a spare meanwhile (the suite's own pools), which
        # this pool's close() is not to end.
        family = set(procfs.tree(zygote))
    finally:
        pool.close()
    assert not family & _torch_free_zygotes()
