"""What the zygote makes of the machine's GPU before any worker runs: the compute mode grading needs,
the Triton interpreter switched on only where there is no CUDA, and the idle imports a one-shot
command's pool does without."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest
import torch
from infrakata.core.errors import SandboxUnavailable
from infrakata.core.limits import Limits
from infrakata.core.sandbox.confine import LAYERS
from infrakata.core.sandbox.doctor import Diagnosis, format_diagnosis
from infrakata.core.sandbox.gpu import INTERPRET_CLEARED_NOTE, compute_mode_problem, mode_name, triton_interpret
from infrakata.core.sandbox.pool import WorkerPool
from infrakata.core.sandbox.protocol import Gpu, SolutionSpec

CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")

H200 = Gpu(0, "NVIDIA H200", "00000000:3B:00.0", 0)


def _exclusive(mode: int = 3) -> Gpu:
    return Gpu(H200.index, H200.name, H200.bus_id, mode)


# -- the compute mode ------------------------------------------------------------------------------

def test_an_exclusive_gpu_is_named_with_the_command_that_fixes_it():
    problem = compute_mode_problem((_exclusive(3),))
    assert problem is not None
    assert "CUDA device 0 (NVIDIA H200, 00000000:3B:00.0)" in problem
    assert "EXCLUSIVE_PROCESS compute mode, which admits one CUDA process at a time" in problem
    assert "the solution's, the reference's and a spare worker's CUDA contexts" in problem
    assert "`sudo nvidia-smi -i 00000000:3B:00.0 -c DEFAULT`" in problem


def test_a_prohibited_gpu_admits_no_process():
    problem = compute_mode_problem((_exclusive(2),))
    assert problem is not None and "PROHIBITED compute mode, which admits no CUDA process" in problem


def test_only_the_gpu_the_workers_use_decides():
    assert compute_mode_problem(()) is None
    assert compute_mode_problem((H200,)) is None
    second = Gpu(1, "NVIDIA H200", "00000000:5D:00.0", 3)
    assert compute_mode_problem((H200, second)) is None  # workers use the first visible GPU
    assert compute_mode_problem((_exclusive(), H200)) is not None


def test_doctor_lists_the_gpus_and_what_to_change():
    diagnosis = Diagnosis((), "best", "Linux", True, True, (_exclusive(), Gpu(1, "NVIDIA H200", "0000:5D:00.0", 0)))
    text = format_diagnosis(diagnosis)
    assert "GPU 0: NVIDIA H200 (00000000:3B:00.0), compute mode EXCLUSIVE_PROCESS" in text
    assert "GPU 1: NVIDIA H200 (0000:5D:00.0), compute mode DEFAULT (unused" in text
    assert "✗ CUDA work is refused: CUDA device 0" in text and "nvidia-smi -i 00000000:3B:00.0 -c DEFAULT" in text
    report = diagnosis.to_dict()
    assert [gpu["mode"] for gpu in report["gpus"]] == ["EXCLUSIVE_PROCESS", "DEFAULT"]
    assert report["gpu_problem"] == compute_mode_problem(diagnosis.gpus)
    fine = Diagnosis((), "best", "Linux", True, True, (H200,))
    assert "refused" not in format_diagnosis(fine) and fine.to_dict()["gpu_problem"] is None


def test_cuda_work_is_refused_on_an_exclusive_gpu_before_any_worker_starts(pool):
    """The pool refuses a CUDA worker with the fix; CPU work goes on. (The GPU's mode is set as the
    zygote's probe would have found it on an exclusive GPU.)"""
    spec = SolutionSpec("def f():\n    return 1\n", "/tmp/f.py", "f", Limits().worker(calls=1, cuda=True))
    cpu = SolutionSpec("def f():\n    return 1\n", "/tmp/f.py", "f", Limits().worker(calls=1, cuda=False))
    pool.wait_ready()
    found = pool.gpus
    pool.gpus = (_exclusive(),)
    try:
        with pytest.raises(SandboxUnavailable, match="EXCLUSIVE_PROCESS.*nvidia-smi -i 00000000:3B:00.0 -c DEFAULT"):
            pool.open(spec, 10.0)
        with pool.open(cpu, 10.0) as worker:
            assert worker.call((), {}, timeout=5.0).value == 1
    finally:
        pool.gpus = found


@needs_cuda
def test_the_probe_reads_each_gpus_compute_mode(pool):
    """On a real GPU: the zygote's probe child found every visible device, with the mode nvidia-smi reports."""
    pool.wait_ready()
    assert pool.gpus, "the probe found no GPU on a machine with CUDA"
    assert [gpu.index for gpu in pool.gpus] == list(range(torch.cuda.device_count()))
    assert all(gpu.mode in (0, 1, 2, 3) and gpu.name and gpu.bus_id for gpu in pool.gpus)
    if shutil.which("nvidia-smi") is None:
        return
    listed = subprocess.run(["nvidia-smi", "--query-gpu=pci.bus_id,compute_mode", "--format=csv,noheader"],
                            capture_output=True, text=True, timeout=30).stdout
    modes = {bus.strip().split(":", 1)[1].upper(): mode.strip().upper()
             for bus, mode in (line.split(",") for line in listed.splitlines() if line.strip())}
    for gpu in pool.gpus:
        assert modes[gpu.bus_id.split(":", 1)[1].upper()] == mode_name(gpu.mode)


# -- the Triton interpreter ------------------------------------------------------------------------

def test_the_interpreter_is_set_without_cuda_and_cleared_with_it():
    assert triton_interpret(None, cuda=False) == ("1", False)
    assert triton_interpret("1", cuda=False) == ("1", False)
    assert triton_interpret("0", cuda=False) == ("0", False)  # asked for: kept (kernels will then fail to compile)
    assert triton_interpret("1", cuda=True) == (None, True)
    assert triton_interpret("true", cuda=True) == (None, True)
    assert triton_interpret("0", cuda=True) == (None, False)  # nothing asked for the interpreter: nothing to say
    assert triton_interpret(None, cuda=True) == (None, False)


def test_an_inherited_interpreter_setting_reaches_the_workers_only_without_cuda(monkeypatch):
    """A real pool started with TRITON_INTERPRET=1: kept for CPU workers, cleared (and said) on CUDA."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    fresh = WorkerPool()
    try:
        info = fresh.wait_ready()
        spec = SolutionSpec("import os\ndef f():\n    return os.environ.get('TRITON_INTERPRET')\n", "/tmp/f.py", "f",
                            Limits().worker(calls=1, cuda=CUDA))
        with fresh.open(spec, 60.0) as worker:
            seen = worker.call((), {}, timeout=30.0).value
        if CUDA:
            assert (seen, info["interpret"], info["interpret_cleared"]) == (None, False, True)
        else:
            assert (seen, info["interpret"], info["interpret_cleared"]) == ("1", True, False)
    finally:
        fresh.close()


def test_kata_doctor_says_when_the_interpreter_setting_was_cleared(tmp_path):
    done = subprocess.run([sys.executable, "-m", "infrakata.core.cli", "doctor"], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, env={**os.environ, "TRITON_INTERPRET": "1"})
    assert (INTERPRET_CLEARED_NOTE in done.stdout) == CUDA, done.stdout + done.stderr


# -- the idle imports ------------------------------------------------------------------------------

DYNAMO = SolutionSpec("import sys\ndef f():\n    return 'torch._dynamo' in sys.modules\n", "/tmp/f.py", "f",
                      Limits().worker(calls=1, cuda=False))


def _dynamo_in_a_worker_once_idle(pool: WorkerPool, idle_for: float = 0.0) -> tuple[bool, float]:
    """Whether a worker forked after the zygote has been idle (its spares started, then `idle_for`
    seconds more) has torch._dynamo imported; and how long after Ready its spares were there."""
    pool.wait_ready()
    ready = time.monotonic()
    deadline = ready + 120.0
    while len(pool.spares.get(False, [])) < 2:
        assert time.monotonic() < deadline, "the zygote started no spare"
        time.sleep(0.05)
    spares_after = time.monotonic() - ready
    time.sleep(idle_for)
    with pool.open(DYNAMO, 30.0) as worker:
        return worker.call((), {}, timeout=10.0).value is True, spares_after


def test_a_one_shot_pool_never_makes_a_fork_wait_for_the_idle_imports():
    """A long-lived pool imports torch._dynamo when idle, before it starts its spares (so they have it);
    a one-shot command's (`kata bench`) does not: its spares come at once, and stay without it however
    long the zygote idles."""
    default = WorkerPool()
    try:
        warm, took = _dynamo_in_a_worker_once_idle(default)
    finally:
        default.close()
    assert warm, "the long-lived pool's workers should have torch._dynamo already imported"
    one_shot = WorkerPool()
    one_shot.idle_imports = False
    try:
        warm, _ = _dynamo_in_a_worker_once_idle(one_shot, idle_for=took + 1.0)
    finally:
        one_shot.close()
    assert not warm, "a one-shot pool's zygote imported torch._dynamo while idle"


@needs_cuda
def test_a_confined_cuda_worker_launches_a_kernel_whose_output_the_trusted_side_opens(pool):
    """The CUDA probe (core/sandbox/cuda_probe.py): a CUDA worker keeps the machine's PID namespace, so that
    its output opens by CUDA IPC in the reference's worker, and every other layer holds on it."""
    pool.wait_ready()
    assert pool.cuda_refusal == "", pool.cuda_refusal
    layers = {layer.name: layer for layer in pool.cuda_isolation_layers}
    assert layers and all(layer.active for layer in layers.values()), layers
    assert "the machine's PID and IPC namespaces" in layers["namespaces"].detail


@pytest.mark.skipif(CUDA or not sys.platform.startswith("linux"), reason="a machine where CUDA cannot start")
def test_the_cuda_probe_refuses_with_the_reason_where_a_confined_worker_cannot_start_cuda(tmp_path):
    """The probe's refusal path, run for real where CUDA cannot start (here, no GPU): the reason names what
    failed, and the probe leaves no process and no folder behind."""
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    script = f"""
import json, os
from pathlib import Path
from infrakata.core.sandbox import zygote
from infrakata.core.sandbox.confine import Confinement
from infrakata.core.sandbox.procfs import children
confinement = Confinement.prepare(Path({str(runtime)!r}))
lifeline = os.pipe()
layers, refusal = zygote._probe_cuda_route(confinement, lifeline[0], (lifeline[1],), triton=False)
print(json.dumps({{"layers": [vars(layer) for layer in layers], "refusal": refusal,
                  "left": sorted(os.listdir({str(runtime)!r})), "children": children(os.getpid()),
                  "templates": sorted(template.root.name for template in confinement.templates.values())}}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["refusal"].startswith("a confined CUDA worker could not initialise CUDA and launch a kernel ("), found
    assert "CUDA" in found["refusal"].partition("(")[2]  # torch's own reason
    assert [layer["name"] for layer in found["layers"]] == list(LAYERS)
    # As root, the zygote's views' templates stay with it; nothing of the probe's worker does.
    assert found["left"] == found["templates"] and found["children"] == []
