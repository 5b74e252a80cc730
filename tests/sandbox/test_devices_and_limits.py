"""Where a problem's cases run, the limits a worker runs under (their CPU and CUDA forms), the workers
the zygote keeps started ahead of need, and the benchmark's trusted check of an output.

On a machine without CUDA the CUDA-only tests skip; the CPU tests decide whether the code is right.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from infrakata.core.bench import timing as benchtime
from infrakata.core.catalog.loading import Catalog, load_problem
from infrakata.core.errors import ProblemError
from infrakata.core.grading.calls import device_for
from infrakata.core.grading.runner import Runner
from infrakata.core.limits import COMPILE_ALLOWANCE_S, CUDA_START_S, MIB, Limits
from infrakata.core.sandbox import cuda_ipc, procfs
from infrakata.core.sandbox.pool import WorkerPool
from infrakata.core.sandbox.protocol import SolutionSpec

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parents[1] / "fixtures" / "problems"
CUDA = torch.cuda.is_available()
HERE = "cuda" if CUDA else "cpu"


@pytest.fixture(scope="module")
def device_probe():
    catalog = Catalog.load([FIXTURES], include_bundled=False)
    assert not catalog.errors, catalog.errors
    return catalog.problems["device-probe"]


def test_unsigned_tensors_cross_to_a_reference_worker_and_back(runner):
    """A hash's uint16, uint32 and uint64 words as graded output arguments of a device problem: its
    reference's worker once died decoding such a request (torch's legacy storage pickles cannot load
    those dtypes), so the problem could not be graded at all; a wrong word is a wrong answer."""
    problem = load_problem(FIXTURES / "unsigned-hash")
    assert runner.run(problem, problem.reference_source, "/tmp/hash.py").verdict == "accepted"
    wrong = problem.reference_source.replace("out32.copy_(hashed.to(torch.uint32))",
                                             "out32.copy_((hashed + 1).to(torch.uint32))")
    report = runner.run(problem, wrong, "/tmp/hash.py")
    assert report.verdict == "wrong_answer" and "out32" in report.cases[1].message, report.cases[1].message


def _kata_workers(pool: WorkerPool) -> list[int]:
    return [pid for pid in procfs.tree(pool._process.pid)
            if Path(f"/proc/{pid}/comm").read_text().strip() == "kata-worker"]


def test_a_device_problems_reference_worker_is_kept_between_gradings_and_replaced_when_it_dies(tmp_path):
    """A device problem's fresh case is answered by its reference in a worker of its own: one kept open
    from grading to grading (a fork and a load, on a GPU a CUDA context, that each save would pay), another
    opened where it has died, and none left once the runner closes."""
    folder = tmp_path / "device-probe"
    shutil.copytree(FIXTURES / "device-probe", folder)
    with (folder / "cases.py").open("a") as cases:
        cases.write("\n\ndef fresh(seed):\n    g = torch.Generator().manual_seed(seed)\n"
                    "    return {'args': (torch.randn(5, generator=g), 2.0)}\n")
    problem = load_problem(folder)
    pool = WorkerPool()  # its own: other tests' runners keep reference workers in the session's pool
    runner = Runner(pool)
    try:
        assert runner.run(problem, problem.reference_source, "/tmp/scale.py").verdict == "accepted"
        _wait_for(lambda: len(_kata_workers(pool)) == 1)  # the solution's worker goes with its run
        [kept] = _kata_workers(pool)  # the reference's
        assert runner.run(problem, problem.reference_source, "/tmp/scale.py").verdict == "accepted"
        _wait_for(lambda: _kata_workers(pool) == [kept])
        os.kill(kept, 9)
        _wait_for(lambda: kept not in _kata_workers(pool))
        report = runner.run(problem, problem.reference_source, "/tmp/scale.py")
        assert report.verdict == "accepted", report.cases
        _wait_for(lambda: len(_kata_workers(pool)) == 1 and _kata_workers(pool) != [kept])
        assert pool.kept == set(_kata_workers(pool))  # known to the pool as kept ahead of need
        runner.close()
        _wait_for(lambda: not _kata_workers(pool))
        assert not pool.kept
    finally:
        runner.close()
        pool.close()


# -- the limits object ----------------------------------------------------------------------------

def test_limits_take_their_cpu_form_without_cuda():
    worker = Limits(time_s=2.0, memory_mb=300, gpu_memory_mb=1000).worker(calls=4, cuda=False)
    assert (worker.cuda, worker.poll_resident, worker.gpu_memory_bytes) == (False, False, None)
    assert worker.memory_bytes == 300 * MIB
    assert worker.cpu_seconds > 2.0 * 4  # a backstop behind the wall clock, never what decides


def test_limits_take_their_cuda_form_with_cuda():
    limits = Limits(time_s=2.0, memory_mb=300, gpu_memory_mb=1000)
    worker = limits.worker(calls=4, cuda=True)
    assert (worker.cuda, worker.poll_resident, worker.gpu_memory_bytes) == (True, True, 1000 * MIB)
    assert worker.memory_bytes == 300 * MIB  # host memory means the same on both: over the warm worker
    # A CUDA worker's load may start CUDA and compile kernels at import.
    assert limits.load_timeout(cuda=True) == limits.load_timeout(cuda=False) + CUDA_START_S + COMPILE_ALLOWANCE_S
    # The reference (trusted) is not held to the learner's device-memory limit.
    assert limits.worker(calls=4, cuda=True, trusted=True).gpu_memory_bytes is None


def test_kernel_problems_set_their_device_memory_and_device(catalog):
    kernels = [p for p in catalog.problems.values() if p.benchmark is not None]
    assert kernels and all(p.grading.device == "cuda" for p in kernels)
    adamw = catalog.problems["quantized-adamw-8bit"]
    assert adamw.limits == Limits(time_s=30.0, memory_mb=2048, gpu_memory_mb=16384)
    assert catalog.problems["adam-optimizer-memory-bytes"].grading.device == "cpu"


@pytest.mark.parametrize("line,message", [
    ("gpu_memory_limit_mb = 0", "field 'gpu_memory_limit_mb': must be a positive number of MiB, got 0"),
    ('device = "tpu"', "field 'grading.device': must be \"cpu\" or \"cuda\", got 'tpu'"),
])
def test_bad_limits_and_devices_name_the_field_and_line(tmp_path, line, message):
    folder = tmp_path / "device-probe"
    folder.mkdir()
    for path in (FIXTURES / "device-probe").iterdir():
        (folder / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    toml = (folder / "problem.toml").read_text(encoding="utf-8")
    toml = toml.replace('device = "cuda"', line) if line.startswith("device") else \
        toml.replace("memory_limit_mb = 512\n", f"memory_limit_mb = 512\n{line}\n")
    (folder / "problem.toml").write_text(toml, encoding="utf-8")
    with pytest.raises(ProblemError) as raised:
        load_problem(folder)
    line_number = toml.splitlines().index(line) + 1
    assert str(raised.value) == f"{folder / 'problem.toml'}:{line_number}: {message}"


def test_a_codestar_problem_in_triton_is_graded_on_the_gpu(tmp_path):
    import json

    seed = json.loads((FIXTURES.parent / "codestar-triton-scale.json").read_text(encoding="utf-8"))
    assert load_problem(FIXTURES.parent / "codestar-triton-scale.json").grading.device == "cuda"
    path = tmp_path / "plain.json"
    path.write_text(json.dumps({**seed, "slug": "plain", "tags": [],
                                "reference_code": "def scale(x, factor):\n    return x * factor\n",
                                "starter_code": "def scale(x, factor):\n    raise NotImplementedError\n"}))
    assert load_problem(path).grading.device == "cpu"


# -- where cases run --------------------------------------------------------------------------------

def test_a_device_problem_runs_where_the_machine_has_its_device(pool, device_probe, catalog):
    assert device_for(device_probe, pool) == HERE
    assert device_for(catalog.problems["adam-optimizer-memory-bytes"], pool) == "cpu"


def test_a_device_problems_inputs_and_reference_are_on_its_device(runner, device_probe):
    """The solution sees its inputs on the device; the reference ran in a worker of its own there (its
    own assertion fails in the grading process), and the comparison happens here on plain tensors."""
    source = ("import torch\n\ndef scale(x, factor):\n"
              f"    assert x.device.type == {HERE!r}, f'inputs on {{x.device}}'\n"
              "    return x * factor\n")
    report = runner.run(device_probe, source, "/tmp/scale.py")
    assert report.verdict == "accepted", [c.message for c in report.cases]
    wrong = runner.run(device_probe, source.replace("x * factor", "x * factor + 1e-3"), "/tmp/scale.py")
    assert wrong.verdict == "wrong_answer" and "out[0]: expected" in wrong.cases[0].message


# -- workers started ahead of need -----------------------------------------------------------------

def _wait_for(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def test_the_zygote_keeps_a_worker_ready_and_is_single_threaded_when_it_forks():
    pool = WorkerPool()
    try:
        info = pool.wait_ready()
        _wait_for(lambda: len(pool.spares.get(False, [])) == 2)  # two kept: a save right after another finds one
        spare = pool.spares[False][0]
        assert Path(f"/proc/{spare}/comm").read_text().strip() == "kata-spare"  # what ps shows
        # It forks: a second thread (a BLAS pool, NVML, the CUDA driver) would be copied half-way.
        assert _threads(pool._process.pid) == 1
        assert not info["cuda"] or _wait_for(lambda: pool.spares.get(True)) is None
        spec = SolutionSpec("import os\ndef pid():\n    return os.getpid()\n", "/tmp/pid.py", "pid",
                            Limits().worker(calls=1, cuda=False))
        namespaced = any(layer.name == "namespaces" and layer.active for layer in pool.isolation_layers)
        with pool.open(spec, 10.0) as worker:
            assert worker.pid == spare
            # In its PID namespace the worker proper is the first process, the spare's child.
            assert worker.call((), {}, timeout=5.0).value == (1 if namespaced else spare)
            names = [Path(f"/proc/{pid}/comm").read_text().strip() for pid in procfs.tree(spare)]
            assert names[-1] == "kata-worker"
        _wait_for(lambda: len(pool.spares[False]) == 2 and spare not in pool.spares[False])  # replaced
        assert _threads(pool._process.pid) == 1
    finally:
        pool.close()


FIRST_PRODUCTS = """
import re

import torch


def _kib():
    with open("/proc/self/status") as status:
        return int(re.search(r"VmSize:\\s+(\\d+)", status.read()).group(1))


def grown(dtype):
    # What a kata with a few MiB of memory may compute: products whose outputs exist before they are measured.
    real, half = getattr(torch, dtype), torch.float16
    products = [(torch.ones(2, 5, 16, dtype=real), torch.ones(2, 16, 16, dtype=real).transpose(-1, -2),
                 torch.empty(2, 5, 5, dtype=real)),
                (torch.ones(256, 256, dtype=real), torch.ones(256, 256, dtype=real), torch.empty(256, 256, dtype=real)),
                (torch.ones(1, 32, 64, dtype=half), torch.ones(1, 64, 16, dtype=half),
                 torch.empty(1, 32, 16, dtype=half))]
    grew = []
    for a, b, out in products:
        before = _kib()
        torch.matmul(a, b, out=out)
        grew.append(_kib() - before >= 512)
    return grew
"""


def test_a_tight_memory_limit_is_the_solutions_not_the_math_libraries(tmp_path, runner):
    """A kata may allow a few MiB (flash-attention-forward: 4) so that only a tiled method fits. A worker's
    first matrix products once grew it by MKL's packing buffers (4 MiB a path) and, for half precision on
    CPUs with AVX512-FP16, oneDNN's compiled kernels (hundreds of KiB a shape): charged to the solution, they
    made a right answer memory_limit_exceeded or a segfault whenever the worker's heap had no room to hide
    them (the zygote's history decided). The buffers are now the warm worker's, and oneDNN sits out."""
    folder = tmp_path / "first-products"
    folder.mkdir()
    (folder / "problem.toml").write_text('slug = "first-products"\ntitle = "t"\nentry_point = "grown"\n'
                                         'memory_limit_mb = 4\n[[cases]]\nargs = ["float32"]\n'
                                         '[[cases]]\nargs = ["float64"]\n')
    (folder / "reference.py").write_text("def grown(dtype):\n    return [False, False, False]\n")
    report = runner.run(load_problem(folder), FIRST_PRODUCTS, str(tmp_path / "grown.py"))
    assert report.verdict == "accepted", [c.message for c in report.cases]


def test_a_paused_worker_runs_nothing_until_it_is_resumed(pool):
    source = ("import threading, time\nticks = [0]\n"
              "def spin():\n    while True:\n        ticks[0] += 1\n        time.sleep(0.001)\n"
              "def start():\n    threading.Thread(target=spin, daemon=True).start()\n"
              "def count():\n    return ticks[0]\n")
    spec = SolutionSpec(source, "/tmp/spin.py", "start", Limits(time_s=5.0).worker(calls=3, cuda=False))
    with pool.open(spec, 10.0) as worker:
        worker.call((), {}, timeout=5.0)
        with worker.paused():
            states = {open(f"/proc/{pid}/task/{t}/stat").read().rsplit(")", 1)[1].split()[0]
                      for pid in procfs.tree(worker.pid) for t in os.listdir(f"/proc/{pid}/task")}
            assert states == {"T"}  # every thread of every process stopped
        assert worker.call((), {}, timeout=5.0).status == "ok"  # and going again


# -- the benchmark's trusted check ----------------------------------------------------------------

def test_forged_ipc_handles_are_refused_before_cuda_sees_them():
    forged = {cuda_ipc.IPC: [[4], [1], 0, "float32", 0, "not hex", 16, 0, "", 0, None, False]}
    with pytest.raises(ValueError, match="malformed CUDA IPC handles"):
        cuda_ipc.import_output(forged)
    bad_dtype = replace_at(replace_at(forged, 5, "00ff"), 3, "object")
    with pytest.raises(ValueError):
        cuda_ipc.import_output(bad_dtype)


@pytest.mark.parametrize("descriptor", [
    [[0, 4], "float32", 0, "extra"], [[2, 4], "float32", 0], [[0], "object", 0], [[0], "float32", -1]])
def test_a_forged_empty_output_is_refused(descriptor):
    """An empty CUDA output crosses as its shape alone (it has no memory to share); only an empty one."""
    with pytest.raises(ValueError):
        cuda_ipc.import_output({cuda_ipc.EMPTY: descriptor})


def test_the_start_event_is_queued_behind_the_device_spin(monkeypatch):
    """The timed call's device operations, in order: the repetitions kept apart by a synchronisation,
    then a spin of the grader's length, the start event behind it, the call, the end event. (No CUDA
    here: the device functions benchtime holds are replaced by a recorder of what is queued.)"""
    queued: list[str] = []
    names = iter(["start", "end"])

    class Event:
        def __init__(self, enable_timing: bool):
            self.name = next(names)

    monkeypatch.setattr(benchtime, "_synchronize", lambda: queued.append("synchronize"))
    monkeypatch.setattr(benchtime, "_sleep", lambda cycles: queued.append(f"spin {cycles}"))
    monkeypatch.setattr(benchtime, "_Event", Event)
    monkeypatch.setattr(benchtime, "_EVENT_METHODS", {
        "record": lambda event: queued.append(f"record {event.name}"), "elapsed_time": lambda start, end: 0.5})
    monkeypatch.setattr(benchtime, "_cycles_per_ms", 1_980_000.0)  # an H200's 1.98 GHz

    output, rep = benchtime._call(lambda x: queued.append("call") or x + 1, (1,), timed=True, spin_ms=2.0)
    assert output == 2 and rep["device_ms"] == 0.5
    assert queued == [
        "synchronize", "spin 3960000", "record start", "call", "record end", "synchronize"]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_host_work_before_the_launch_is_hidden_behind_the_spin_on_a_gpu():
    """A millisecond of host work before a tiny kernel's launch is not in its device time."""
    x = torch.zeros(1024, device="cuda")

    def slow_to_launch(t):
        time.sleep(0.001)
        return t.add_(1)

    slow_to_launch(x)
    _, rep = benchtime._call(slow_to_launch, (x,), timed=True, spin_ms=2.0)
    assert rep["device_ms"] is not None and rep["device_ms"] < 0.5
    assert rep["wall_ms"] is not None and rep["wall_ms"] >= 2.0 + rep["device_ms"] - 0.05


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_an_empty_cuda_output_crosses_to_the_trusted_worker():
    empty = torch.empty(0, 4, device="cuda", dtype=torch.bfloat16)
    crossed = cuda_ipc.import_output(cuda_ipc.export_output((empty, 3)))
    assert crossed[0].shape == (0, 4) and crossed[0].dtype == torch.bfloat16 and crossed[0].is_cuda


def replace_at(forged: dict, index: int, value) -> dict:
    fields = list(forged[cuda_ipc.IPC])
    fields[index] = value
    return {cuda_ipc.IPC: fields}


def test_plain_outputs_cross_as_they_are():
    value = (torch.arange(3), {"m": torch.ones(2)}, 7)
    assert cuda_ipc.import_output(cuda_ipc.export_output(value))[2] == 7
    assert torch.equal(cuda_ipc.export_output(value)[1]["m"], torch.ones(2))


def test_a_solution_forging_handles_is_rejected_by_the_trusted_check(pool, tmp_path, catalog):
    """What the solution's process says its output is gets checked in the reference's worker."""
    from infrakata.core.bench import benchmark as bench

    path = tmp_path / "forge.py"
    path.write_text("import torch\n\ndef softmax_rows(x):\n"
                    f"    return {{{cuda_ipc.IPC!r}: [[1], [1], 0, 'float32', 0, 'x', 4, 0, '', 0, None, 7]}}\n")
    report = bench.run_benchmark(catalog.problems["fused-row-softmax"], path.read_text(), path, pool, shapes=[])
    assert not report.correct
    assert "the solution's output could not be read (ValueError: malformed CUDA IPC handles)" in report.gate_message


# -- on a GPU -------------------------------------------------------------------------------------

needs_cuda = pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")


@needs_cuda
def test_a_kernel_kata_is_accepted_and_rejected_on_cuda(runner, catalog):
    problem = catalog.problems["quantized-adamw-8bit"]
    ours = REPO / "kernels" / "adamw8bit.py"
    report = runner.run(problem, ours.read_text(), ours)
    assert report.verdict == "accepted", [c.message for c in report.cases]
    wrong = sorted((problem.folder / "wrong").glob("*.py"))[0]
    assert runner.run(problem, wrong.read_text(), wrong).verdict != "accepted"


@needs_cuda
def test_gpu_memory_over_the_limit_gets_its_own_verdict(device_probe):
    small = replace(device_probe, limits=replace(device_probe.limits, gpu_memory_mb=256))
    source = "import torch\n\ndef scale(x, factor):\n    hog = torch.empty(1 << 30, device='cuda')\n    return x\n"
    report = Runner(WorkerPool.shared()).run(small, source, "/tmp/hog.py")
    assert report.verdict == "memory_limit_exceeded"
    message = report.cases[0].message
    assert "GPU memory limit exceeded: tried to allocate 4,096 MiB" in message
    assert "(limit 256 MiB of device memory per worker)" in message


@needs_cuda
def test_host_memory_is_limited_over_a_warm_cuda_worker(device_probe):
    """A CUDA worker's own start (hundreds of MiB) does not count; what the solution adds does."""
    source = ("import time\n\ndef scale(x, factor):\n    hog = bytearray(2 << 30)\n    time.sleep(5)\n"
              "    return x * factor\n")
    report = Runner(WorkerPool.shared()).run(device_probe, source, "/tmp/hog.py")
    assert report.verdict == "memory_limit_exceeded"
    assert "the kata allows 512 MiB beyond what a worker holds when it starts" in report.cases[0].message
    honest = Runner(WorkerPool.shared()).run(device_probe, "def scale(x, factor):\n    return x * factor\n",
                                             "/tmp/scale.py")
    assert honest.verdict == "accepted"


def test_a_codestar_kernel_problem_runs_its_reference_beside_the_solution(runner):
    """test_code calls ref_obj in the grader; for a kernel problem that call goes to the reference's
    worker, on the solution's device, and the inputs of user_obj go to that device too."""
    problem = load_problem(FIXTURES.parent / "codestar-triton-scale.json")
    solution = problem.reference_source.replace('assert "infrakata.core.grading.runner" not in sys.modules',
                                                "assert True")
    report = runner.run(problem, solution, "/tmp/triton_scale.py")
    assert report.verdict == "accepted", [c.message for c in report.cases]
    assert report.total == 3
    wrong = runner.run(problem, solution.replace("* factor, mask=mask)", "* factor + 1, mask=mask)"), "/tmp/w.py")
    assert wrong.verdict == "wrong_answer"


@needs_cuda
def test_a_cuda_worker_is_ready_before_it_is_needed():
    """The zygote keeps a worker with CUDA (and Triton) initialised; a kernel kata's run takes it."""
    pool = WorkerPool()
    try:
        assert pool.wait_ready()["cuda"]
        _wait_for(lambda: pool.spares.get(True), timeout=120.0)
        spare = pool.spares[True][0]
        spec = SolutionSpec("import torch\ndef f():\n    return torch.cuda.is_initialized()\n", "/tmp/f.py", "f",
                            Limits().worker(calls=1, cuda=True))
        with pool.open(spec, 10.0) as worker:
            assert worker.pid == spare
            assert worker.call((), {}, timeout=5.0).value is True
        assert _threads(pool._process.pid) == 1
    finally:
        pool.close()
