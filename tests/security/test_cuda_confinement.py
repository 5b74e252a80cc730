"""CUDA workers' confinement, tried where there is no GPU. A CUDA worker keeps the machine's PID and IPC
namespaces (legacy CUDA IPC, by which the benchmark checks a solution's last output, cannot cross a PID
namespace); the other layers must keep what the PID namespace kept. INFRAKATA_CONFINE_AS_CUDA=1 confines
every worker of a pool so, and each test here attacks through it what the PID namespace used to stop.
A GPU machine's own check, the CUDA probe, is in tests/sandbox/test_gpu_setup.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from infrakata.core.grading.runner import Runner
from infrakata.core.sandbox import policy
from infrakata.core.sandbox.doctor import Diagnosis, format_diagnosis
from infrakata.core.sandbox.pool import WorkerPool
from infrakata.core.sandbox.protocol import Layer

from .conftest import attempt

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux namespaces")


@pytest.fixture(scope="module")
def cuda_confined():
    """A pool whose workers are all confined as CUDA workers are, and its runner."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv(policy.CONFINE_AS_CUDA, "1")
        pool = WorkerPool()
        pool.start()
        pool.wait_ready()
    yield Runner(pool)
    pool.close()


def test_every_layer_holds_without_a_pid_namespace(cuda_confined):
    layers = {layer.name: layer for layer in cuda_confined.pool.isolation_layers}
    assert all(layer.active for layer in layers.values()), layers
    assert "the machine's PID and IPC namespaces" in layers["namespaces"].detail


def test_doctor_says_the_workers_keep_the_machines_pid_namespace(tmp_path):
    done = subprocess.run([sys.executable, "-m", "infrakata.core.cli", "doctor", "--json"], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, env={**os.environ, policy.CONFINE_AS_CUDA: "1"})
    namespaces = next(layer for layer in json.loads(done.stdout)["layers"] if layer["name"] == "namespaces")
    assert namespaces["active"] and "PID and IPC namespaces (CUDA IPC needs them)" in namespaces["detail"]


def test_the_machines_other_processes_are_not_in_its_proc(cuda_confined, probe):
    report, message, output = attempt(cuda_confined, probe, f"""
        pids = [int(p) for p in os.listdir('/proc') if p.isdigit()]
        uids = {{os.stat(f'/proc/{{p}}').st_uid for p in pids if os.path.exists(f'/proc/{{p}}')}}
        print('uids', sorted(uids) == [os.getuid()])
        for pid in ({os.getpid()}, os.getppid(), 1):
            try:
                print('read', open(f'/proc/{{pid}}/cmdline', 'rb').read()[:40])
            except OSError as error:
                print('refused', type(error).__name__)
    """)
    assert report.verdict == "accepted", message
    assert output and all(line in ("uids True", "refused FileNotFoundError", "refused PermissionError")
                          for line in output.splitlines()), output


def test_the_grader_cannot_be_signalled(cuda_confined, probe):
    report, message, _ = attempt(cuda_confined, probe, f"os.kill({os.getpid()}, signal.SIGSTOP)")
    assert report.verdict == "runtime_error" and ("Operation not permitted" in message
                                                  or "No such process" in message), message


def test_nothing_it_starts_outlives_the_run(cuda_confined, probe):
    """A double fork: the grandchild, reparented away from the worker, sleeps on; it must be gone after."""
    report, message, output = attempt(cuda_confined, probe, """
        if os.fork() == 0:
            grandchild = os.fork()
            if grandchild == 0:
                time.sleep(60)
            print('left', grandchild, flush=True)
            os._exit(0)
        os.wait()
    """)
    assert report.verdict == "accepted", message
    left = [int(line.split()[1]) for line in output.splitlines() if line.startswith("left")]
    assert left, output
    deadline = time.monotonic() + 10
    while any(os.path.exists(f"/proc/{pid}") and not _zombie(pid) for pid in left) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:
        assert not os.path.exists(f"/proc/{pid}") or _zombie(pid), f"{pid} outlived its worker"


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_it_cannot_open_a_message_queue_in_the_shared_ipc_namespace(cuda_confined, probe):
    report, message, output = attempt(cuda_confined, probe, """
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.mq_open(b'/kata-attack', os.O_CREAT | os.O_RDWR, 0o600, None)
        print('refused' if fd < 0 else 'opened', ctypes.get_errno())
    """)
    assert report.verdict == "accepted", message
    assert output.split()[0] == "refused", output


def test_a_failed_cuda_probe_refuses_cuda_work_and_says_why():
    layers = (Layer("namespaces", True, "network, mount"),)
    diagnosis = Diagnosis(layers, "best", "Linux", True, True, cuda_layers=layers,
                          cuda_refusal="the benchmark's trusted worker could not open a confined worker's output by "
                                       "CUDA IPC (RuntimeError: invalid resource handle)")
    text = format_diagnosis(diagnosis)
    assert "✗ CUDA work is refused: CUDA grading is refused on this machine: the benchmark's trusted worker" in text
    assert "CUDA work never runs unconfined" in text
    assert diagnosis.to_dict()["gpu_problem"].startswith("CUDA grading is refused")


def test_a_layer_missing_on_cuda_workers_alone_is_said_and_makes_the_machine_incomplete():
    held = tuple(Layer(name, True, "holds") for name in ("namespaces", "landlock"))
    diagnosis = Diagnosis(held, "best", "Linux", True, True,
                          cuda_layers=(held[0], Layer("landlock", False, "the probe worker failed before it")))
    text = format_diagnosis(diagnosis)
    assert "every layer holds" in text  # the CPU workers'
    assert 'missing on CUDA workers: landlock; isolation "strict" refuses CUDA work here' in text
    assert diagnosis.to_dict()["complete"] is False

