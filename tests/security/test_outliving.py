"""Outliving the run: nothing a solution starts survives it, and its processes together are held to
its memory limit (RLIMIT_AS is per process: four helpers once held 800 MiB under a 512 MiB limit)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from infrakata.core.sandbox.confine import NPROC_CPU, NPROC_CUDA
from infrakata.core.sandbox.policy import CONFINE_AS_CUDA

from .conftest import FIXTURES, attempt, solution


def _alive(marker: str) -> list[int]:
    """Processes whose command line carries `marker` (the attack names its helpers with it)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/comm") as comm:
                    if comm.read().strip() == marker:
                        found.append(int(entry))
            except OSError:
                continue
    return found


DAEMON = """
    import ctypes
    if os.fork() == 0:
        if os.fork() == 0:
            ctypes.CDLL(None).prctl(15, b"kata-daemon")
            time.sleep(60)
        os._exit(0)
    time.sleep(0.3)
"""


def test_a_double_fork_does_not_outlive_kata_run(tmp_path):
    """Before: a daemon forked after the orphan sweep still ran after `kata run` exited."""
    attack = tmp_path / "scale.py"
    attack.write_text("# kata: sandbox-probe\n" + solution(DAEMON))
    done = subprocess.run([sys.executable, "-m", "infrakata.core.cli", "--problems", str(FIXTURES), "run",
                           str(attack)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    deadline = time.monotonic() + 5
    while _alive("kata-daemon") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive("kata-daemon")


def test_helpers_are_held_to_the_memory_limit_together(runner, patient_probe):
    """Four forked helpers of 100 MiB each: within the 256 MiB limit alone, not together."""
    report, message, _ = attempt(runner, patient_probe, """
        for _ in range(4):
            if os.fork() == 0:
                hog = bytearray(100 << 20)
                time.sleep(30)
                os._exit(0)
        time.sleep(30)
    """)
    assert report.verdict == "memory_limit_exceeded", message
    assert "the solution's processes held" in message


def test_a_fork_bomb_meets_the_process_limit(runner, patient_probe):
    """A fork of a warm worker takes milliseconds, and a thousand of them more than a second. A worker confined
    by the CUDA route may run 512 tasks (CUDA starts threads of its own): there the memory limit, polled over
    the worker's processes, may meet the bomb first."""
    cuda_route = os.environ.get(CONFINE_AS_CUDA) == "1"
    report = runner.run(patient_probe, solution("""
        count = 0
        try:
            while not FORKED and count < 1000:
                if os.fork() == 0:
                    time.sleep(60)
                    os._exit(0)
                count += 1
        except OSError as error:
            print(count, error)
        FORKED.append(count)
    """, prelude="FORKED = []"), "/tmp/attack.py")
    if cuda_route and report.verdict == "memory_limit_exceeded":
        assert "the solution's processes held" in report.cases[0].message
        return
    assert report.verdict == "accepted", report.cases[0].message
    count, error = report.output.split(maxsplit=1)
    assert int(count) < (NPROC_CUDA if cuda_route else NPROC_CPU) and "Resource temporarily unavailable" in error, \
        report.output
