"""Nothing outlives its grader, whatever the moment it dies: a spare stopped at its birth while its
zygote is killed, a dead zygote noticed at once, a run whose zygote died not graded as the solution's
crash, and no process of the sandbox holding the grader's own output."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from infrakata.core.catalog.loading import Catalog
from infrakata.core.errors import SandboxUnavailable
from infrakata.core.grading.runner import Runner
from infrakata.core.sandbox import lifeline, procfs
from infrakata.core.sandbox.pool import WorkerPool

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from soak import SpareStopper, process_stat, serve_session  # noqa: E402 - the soak's own pieces

FIXTURES = Path(__file__).parents[1] / "fixtures" / "problems"
KATA = Path(sys.executable).with_name("kata")


def _running(pid: int) -> bool:
    found = process_stat(pid)
    return found is not None and found[1] != "Z"


def _wait_until(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return condition()


@pytest.fixture
def own_pool():
    pool = WorkerPool()
    pool.start()
    yield pool
    pool.close()


def test_a_spare_stopped_at_its_birth_does_not_outlive_its_killed_zygote(own_pool):
    """Before: a spare stopped before it asked to die with its parent, whose zygote was then killed (as the
    OOM killer would), ran on blocked in a datagram recv for ever, holding whatever the zygote held."""
    stopper = SpareStopper(zygote=own_pool._process.pid)
    own_pool.wait_ready()
    stopper.wait_stopped(30)
    assert stopper.stopped, "no spare was forked"
    spare = stopper.stopped[0]
    own_pool._process.kill()
    stopper.release()
    assert _wait_until(lambda: not _running(spare), 10), f"spare {spare} outlived its zygote"


def test_the_grader_learns_of_a_dead_zygote_at_once_and_grades_on(own_pool):
    """Before: a dead zygote was noticed only when a fork request timed out (30 s)."""
    own_pool.wait_ready()
    os.kill(own_pool._process.pid, signal.SIGKILL)
    assert _wait_until(own_pool.zygote_lost, 2.0)
    probe = Catalog.load([FIXTURES], include_bundled=False).problems["sandbox-probe"]
    report = Runner(own_pool).run(probe, "def scale(x, factor):\n    return x * factor\n", "/tmp/scale.py")
    assert report.verdict == "accepted"


def test_a_run_whose_zygote_dies_is_not_graded(own_pool):
    """The zygote takes its workers with it; that is the grader's failure, not a crash of the solution's."""
    probe = Catalog.load([FIXTURES], include_bundled=False).problems["sandbox-probe"]
    runner = Runner(own_pool)
    zygote = own_pool.wait_ready() and own_pool._process.pid

    def kill_once_a_worker_runs() -> None:  # not before: a fork the zygote never answered is asked again
        if _wait_until(lambda: any((process_stat(pid) or (0, "", ""))[2] == "kata-worker"
                                   for pid in procfs.tree(zygote)), 60):
            os.kill(zygote, signal.SIGKILL)

    killer = threading.Thread(target=kill_once_a_worker_runs)
    killer.start()
    try:
        with pytest.raises(SandboxUnavailable, match="worker pool died during the run"):
            runner.run(probe, "import time\ndef scale(x, factor):\n    time.sleep(5)\n    return x * factor\n",
                       "/tmp/scale.py")
    finally:
        killer.join(60)


def test_no_process_of_the_sandbox_holds_the_graders_output(tmp_path):
    """A zygote or worker that inherited the grader's stdout or stderr would keep them open after the
    grader died, and `subprocess.run(capture_output=True)` on the grader would never return."""
    solution = tmp_path / "lora_forward.py"
    solution.write_text((REPO / "problems" / "lora-forward" / "reference.py").read_text())
    server = subprocess.Popen([str(KATA), "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, cwd=tmp_path)
    try:
        server.stdin.write(serve_session(tmp_path, solution))  # it grades the file it was given
        server.stdin.flush()
        mine = {os.readlink(f"/proc/{server.pid}/fd/{fd}") for fd in (1, 2)}
        assert _wait_until(lambda: any((process_stat(pid) or (0, "", ""))[2] == "kata-spare"
                                       for pid in _sandbox_processes(server.pid)), 120), "no spare was started"
        held = {pid: link for pid in _sandbox_processes(server.pid) for link in _links(pid) if link in mine}
        assert not held, held
    finally:
        server.kill()
        server.communicate(timeout=30)


def _sandbox_processes(root: int) -> list[int]:
    found, frontier = [], [root]
    while frontier:
        pid = frontier.pop()
        for task in os.listdir(f"/proc/{pid}/task") if os.path.exists(f"/proc/{pid}/task") else ():
            try:
                with open(f"/proc/{pid}/task/{task}/children") as listing:
                    frontier += map(int, listing.read().split())
            except OSError:
                continue
        if pid != root:
            found.append(pid)
    return found


def _links(pid: int) -> list[str]:
    try:
        return [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
    except OSError:
        return []


def test_a_process_whose_parent_died_before_it_asked_to_die_with_it_exits():
    """PR_SET_PDEATHSIG asked for after the parent's death never fires: the lifeline says it is gone."""
    report_r, report_w = os.pipe()
    gate_r, gate_w = os.pipe()
    middle = os.fork()
    if middle == 0:
        ours, held = os.pipe()
        if os.fork() == 0:
            os.close(held)
            os.read(gate_r, 1)  # once the test has seen its parent die
            lifeline.die_with_parent(ours)
            os.write(report_w, b"survived")
            os._exit(0)
        os._exit(0)  # dies holding the lifeline's write end
    os.close(report_w)
    os.waitpid(middle, 0)
    os.write(gate_w, b"g")
    with os.fdopen(report_r, "rb") as report:
        assert report.read() == b""
