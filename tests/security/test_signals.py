"""Signals: a solution cannot stop or kill the grader, the language server or another submission's worker."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from infrakata.core.limits import Limits
from infrakata.core.sandbox import procfs
from infrakata.core.sandbox.protocol import SolutionSpec

from .conftest import REPO, attempt, solution


def test_the_grader_cannot_be_stopped(runner, probe):
    report, message, _ = attempt(runner, probe, f"os.kill({os.getpid()}, signal.SIGSTOP)")
    # Not there (a PID namespace of its own), or there and out of reach (a CUDA worker's: Landlock's scope).
    assert report.verdict == "runtime_error" and ("No such process" in message
                                                  or "Operation not permitted" in message), message


def test_kata_run_returns_although_its_solution_signals_it(tmp_path):
    """Before: SIGSTOP to `kata run` (found as the parent of the zygote) and it never returned."""
    attack = tmp_path / "scale.py"
    attack.write_text("# kata: sandbox-probe\n" + solution(
        "for pid in range(1, 1 << 16):\n"
        "    try:\n"
        "        os.kill(pid, signal.SIGSTOP)\n"
        "    except OSError:\n"
        "        pass\n"))
    done = subprocess.run([sys.executable, "-m", "infrakata.core.cli", "--problems", str(REPO / "tests" / "fixtures"
                           / "problems"), "run", str(attack)], capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr  # graded: it returned


def test_a_sibling_workers_cannot_be_killed(runner, pool, probe):
    """Two submissions graded side by side: one cannot kill the other's worker."""
    spec = SolutionSpec("import time\ndef f():\n    time.sleep(3)\n    return 7\n", "/tmp/victim.py", "f",
                        Limits(time_s=10.0).worker(calls=1, cuda=False))
    with pool.open(spec, 10.0) as victim:
        targets = procfs.tree(victim.pid)  # the spare and, in its PID namespace, the worker proper
        kills = [f"try:\n    os.kill({pid}, signal.SIGKILL)\nexcept OSError as error:\n    print(error)\n"
                 for pid in targets]
        report, message, _ = attempt(runner, probe, "".join(kills))
        assert report.verdict == "accepted", message
        result = victim.call((), {}, timeout=10.0)
    assert result.status == "ok" and result.value == 7


def test_no_process_of_the_graders_user_can_be_killed(runner, probe):
    """The language server, an editor, a shell: any process outside the sandbox, of the grader's user."""
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        report, message, _ = attempt(runner, probe, f"os.kill({bystander.pid}, signal.SIGKILL)")
        assert report.verdict == "runtime_error", message
        time.sleep(0.2)
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait(10)
