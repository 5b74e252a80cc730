"""Reading the answer: the catalogue, our kernels, the grader's process. Each was possible before the
sandbox; now each is refused, and the honest part of the solution still grades."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from infrakata.core.sandbox import policy

from .conftest import REPO, attempt


@pytest.mark.parametrize("body", [
    "import infrakata.problems",
    # cases.py is loaded at its first import: by its name, which the grader's naming makes known
    "import importlib\ncases = importlib.import_module('infrakata_problem_sandbox_probe_cases')\n"
    "open(os.path.join(os.path.dirname(cases.__file__), 'reference.py')).read()",
    f"open({str(REPO / 'problems' / 'rmsnorm' / 'reference.py')!r}).read()",
    f"os.listdir({str(REPO / 'problems')!r})",
    "import infrakata.kernels.adamw8bit",
    f"open({str(REPO / 'kernels' / 'softmax.py')!r}).read()",
    f"open({str(REPO / 'examples' / 'gradient_accumulation.py')!r}).read()",
    "import infrakata.examples.gradient_accumulation",
], ids=["import the catalogue", "cases' __file__ to reference.py", "a reference by path", "list the catalogue",
        "import our kernel", "read our kernel", "read a bundled example", "import a bundled example"])
def test_the_answers_are_out_of_reach(runner, probe, body):
    report, message, _ = attempt(runner, probe, body)
    assert report.verdict == "runtime_error", message
    # Not there at all (the view), or there and refused (Landlock alone).
    assert any(error in message for error in ("FileNotFoundError", "PermissionError", "ModuleNotFoundError")), message


def test_the_graders_process_is_out_of_sight(runner, probe):
    """Its command line (a codestar JSON's path), its working folder, its memory: nothing is there to read."""
    grader = os.getpid()
    report, message, output = attempt(runner, probe, f"""
        print(sorted(p for p in os.listdir('/proc') if p.isdigit()))
        for what in ('cmdline', 'cwd', 'mem', 'environ'):
            try:
                print(what, open('/proc/{grader}/' + what, 'rb').read(64))
            except OSError as error:
                print(what, 'refused', type(error).__name__)
    """)
    assert report.verdict == "accepted", message
    lines = output.splitlines()[:5]  # the first case's (each case prints the same)
    visible = eval(lines[0])  # noqa: S307 - our own print of a list of digit strings
    assert str(grader) not in visible and len(visible) <= 2, visible  # its own PID namespace
    assert [line.split()[1] for line in lines[1:]] == ["refused"] * 4, lines


def test_the_shared_kernel_helpers_stay_importable(runner, probe):
    """Our bf16 rounding helpers are for learners' kernels: a solution may import them."""
    report, message, _ = attempt(runner, probe, "from infrakata.kernels.bf16 import bf16_bits_view")
    assert report.verdict == "accepted", message


def test_answers_installed_in_a_system_folder_are_carved_out_of_it():
    """Before: installed under /usr/local/lib (or /usr/lib), the catalogue was readable, because those
    folders were granted whole after the Python folders had been carved around the answers."""
    system = Path("/usr/lib")
    answers = next(p for p in sorted(system.iterdir()) if p.is_dir()) / "dist-packages" / "infrakata" / "problems"
    granted = policy.grants(Path("/tmp/kata-worker"), cuda=True, denied=[answers])
    assert not policy.readable_by_workers(answers / "rmsnorm" / "reference.py", granted)
    sibling = next(p for p in system.rglob("*.so*") if answers.parents[2] not in p.parents)
    assert policy.readable_by_workers(sibling, granted), "the rest of the folder stays readable"
