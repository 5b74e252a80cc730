"""`kata watch`: the real command regrades a solution when it is saved."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from infrakata.core.watch import Debouncer

KATA = Path(sys.executable).with_name("kata")


def test_debouncer_fires_once_per_burst():
    fired = []
    debouncer = Debouncer(0.05, fired.append)
    for _ in range(5):
        debouncer.poke("a.py")
    debouncer.poke("b.py")
    deadline = time.monotonic() + 5
    while len(fired) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    assert sorted(fired) == ["a.py", "b.py"]


def _read_until(process: subprocess.Popen, needle: str, timeout: float) -> str:
    seen = ""
    deadline = time.monotonic() + timeout
    while needle not in seen:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"no {needle!r} in the watch output:\n{seen}"
        ready, _, _ = select.select([process.stdout], [], [], remaining)
        if ready:
            chunk = os.read(process.stdout.fileno(), 65536).decode()
            assert chunk, f"kata watch exited:\n{seen}"
            seen += chunk
    return seen


def test_watch_regrades_on_save(tmp_path):
    # PYTHONFAULTHANDLER: a watch that does not stop is made to say where each of its threads is.
    # SIGINT as a terminal delivers it: a CI job started in the background ignores it, and so would the watch
    # (it once waited there for good, holding its zygote).
    process = subprocess.Popen([str(KATA), "watch", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               env={**os.environ, "COLUMNS": "200", "PYTHONFAULTHANDLER": "1"},
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        _read_until(process, "watching", 60)
        solution = tmp_path / "edit_distance.py"
        solution.write_text("def edit_distance(a, b):\n    return abs(len(a) - len(b))\n")
        _read_until(process, "wrong answer", 60)
        solution.write_text("def edit_distance(a, b):\n    row = list(range(len(b) + 1))\n"
                            "    for i, ca in enumerate(a, 1):\n        new = [i]\n"
                            "        for j, cb in enumerate(b, 1):\n"
                            "            new.append(min(new[-1] + 1, row[j] + 1, row[j - 1] + (ca != cb)))\n"
                            "        row = new\n    return row[-1]\n")
        _read_until(process, "accepted", 60)
    finally:
        _interrupt(process)


def _interrupt(process: subprocess.Popen, timeout: float = 30) -> None:
    """Ctrl-C: the watch must end within `timeout`, its output read meanwhile (a full pipe would hold it)."""
    process.send_signal(signal.SIGINT)
    said, deadline = b"", time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        if select.select([process.stdout], [], [], 0.1)[0]:
            said += os.read(process.stdout.fileno(), 65536)
    if process.poll() is None:
        process.send_signal(signal.SIGABRT)  # faulthandler prints every thread's stack
        said += process.communicate(timeout=30)[0]
        raise AssertionError(f"kata watch did not stop {timeout} s after Ctrl-C:\n{said.decode(errors='replace')}")


def test_watch_grades_the_solutions_already_there_and_says_why_it_cannot_read_one(tmp_path):
    (tmp_path / "adam_optimizer_memory_bytes.py").write_text("def adam_memory_bytes(n):\n    return 12 * n\n")
    (tmp_path / "notes.py").write_text("x = 1\n")  # no problem claims it: passed over in silence
    (tmp_path / "edit_distance.py").write_bytes(b"# caf\xe9\ndef edit_distance(a, b):\n    return 0\n")
    process = subprocess.Popen([str(KATA), "watch", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               env={**os.environ, "COLUMNS": "200", "PYTHONFAULTHANDLER": "1"},
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        seen = _read_until(process, "save the file as UTF-8", 60)  # graded in name order, before any save
        assert "accepted" in seen
        assert f"{tmp_path / 'edit_distance.py'}:1:6: not UTF-8 text" in " ".join(seen.split())
        assert "notes.py" not in seen
    finally:
        _interrupt(process)
