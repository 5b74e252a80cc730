"""The kernel benchmark's gate: our kernels pass it, every wrong/ solution of a kernel problem
(timing cheats included) is refused, and without CUDA it says so and reports no figures.

On the CPU the gate runs through the Triton interpreter. The timed protocol (warm-up on throwaway
inputs, fresh inputs per repetition, the last output checked) runs there too when a test names
its shapes; only the CUDA timing itself needs a GPU.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from infrakata.core.bench import benchmark as bench
from infrakata.core.bench.benchmark import BenchReport, Rejected, ShapeResult
from infrakata.core.catalog.kinds.native import expected_verdict, load_native
from infrakata.core.catalog.loading import Catalog
from infrakata.core.catalog.problem import Gate
from infrakata.core.cli.bench import format_bench
from infrakata.core.errors import ProblemError
from infrakata.core.sandbox.pool import CancelToken

REPO = Path(__file__).resolve().parents[2]
CATALOG = Catalog.load()
KERNEL_PROBLEMS = sorted((p for p in CATALOG.problems.values() if p.benchmark is not None), key=lambda p: p.slug)
OURS = {
    "quantized-adamw-8bit": "adamw8bit.py",
    "fused-row-softmax": "softmax.py",
    "blockwise-absmax-quant": "absmax_quant.py",
    "fused-rmsnorm": "rmsnorm.py",
    "fused-swiglu": "swiglu.py",
    "tiled-matmul": "matmul.py",
    "triton-flash-attention-forward": "flash_attention.py",
    "triton-fused-cross-entropy": "cross_entropy.py",
    "triton-layernorm-backward": "layernorm_backward.py",
    "triton-moe-grouped-gemm": "grouped_gemm.py",
    "triton-gemm-fused-epilogue": "linear_epilogue.py",
    "triton-int8-matmul-scaled": "int8_matmul.py",
    "triton-split-k-gemm": "split_k_matmul.py",
    "triton-rotary-in-place": "rotary.py",
    "triton-paged-attention-decode": "paged_attention.py",
    "triton-top-p-sampling": "top_p.py",
}
# A timed shape the interpreter can afford that is past what a "right only on small inputs" cheat
# handles (2**20 parameters); on CUDA the problem's own timed shapes play this part.
STAND_IN_TIMED_SHAPES = {"quantized-adamw-8bit": [(513,)]}
WRONG = [(p, path) for p in KERNEL_PROBLEMS for path in sorted((p.folder / "wrong").rglob("*.py"))]
TIMING_CHEATS = [(p, path) for p, path in WRONG if path.parent.name == "timing"]
CUDA = torch.cuda.is_available()


def _bench(pool, problem, path, **kwargs) -> BenchReport:
    return bench.run_benchmark(problem, path.read_text(encoding="utf-8"), path, pool, **kwargs)


def test_every_kernel_problem_has_our_solution():
    assert sorted(OURS) == [p.slug for p in KERNEL_PROBLEMS]


@pytest.mark.parametrize("problem", KERNEL_PROBLEMS, ids=lambda p: p.slug)
def test_gate_accepts_our_kernel(pool, problem):
    # No timed shapes: on a GPU the timed run is test_cuda_figures_are_plausible's (and `kata bench`'s).
    report = _bench(pool, problem, REPO / "kernels" / OURS[problem.slug], shapes=[])
    assert report.correct, report.gate_message
    assert [s.shape for s in report.shapes][:len(problem.benchmark.correctness_shapes)] == \
        list(problem.benchmark.correctness_shapes)
    assert all(s.check == "passed" for s in report.shapes)
    if not CUDA:
        assert report.geomean is None and report.roofline is None and report.speedup_vs_reference is None
        assert "throughput needs a CUDA GPU" in report.notes[0]




@pytest.mark.parametrize("problem,path", WRONG, ids=lambda x: getattr(x, "slug", None) or x.name)
def test_gate_rejects_every_wrong_solution(pool, problem, path):
    report = _bench(pool, problem, path, shapes=STAND_IN_TIMED_SHAPES.get(problem.slug))
    assert not report.correct, f"{path.name} passed the benchmark gate"
    assert report.geomean is None
    assert WHY.get(path.name, "") in report.gate_message
    if report.shapes:
        assert report.shapes[-1].check == report.gate_message  # the failing shape is listed with the reason
    else:  # refused before anything ran (a forbidden call), on its line
        assert report.gate_message.startswith(f"line {report.line}: ") and "forbidden" in report.gate_message


# What the gate says about each cheat: the user must learn what was caught.
WHY = {
    "patches_the_timer.py": "the solution replaced time.perf_counter, torch.cuda.Event.elapsed_time",
    "replays_cached_result.py": "repetition 2 of 2, the call on seed 10001's inputs: params_out: relative error",
    "small_shapes_only.py": "timed shape (513,)",
    "returns_lazy_tensor.py": "a torch.Tensor subclass (Deferred) was returned",
    "eager_torch.py": "eager torch work outside a Triton kernel is not allowed in this problem (aten.",
    # A copy made by reshape is eager work outside the launch: the kata's eager rule refuses it first.
    "rotates_a_reshaped_copy.py": "a call may only allocate tensors",
}


def test_the_gate_refuses_a_call_that_launched_no_kernel(pool):
    """Where eager torch may run beside a launch ([grading] eager = "any"), the gate refuses plain torch when
    its call returns without a launch; under the kata's eager rule (the eager_torch.py cheats), at its first op."""
    problem = CATALOG.problems["fused-row-softmax"]
    eager_allowed = replace(problem, grading=replace(problem.grading, eager="any"))
    report = _bench(pool, eager_allowed, problem.folder / "wrong" / "cheats" / "eager_torch.py")
    assert not report.correct and "no Triton kernel was launched during the call" in report.gate_message


@pytest.mark.parametrize("problem,path", TIMING_CHEATS, ids=lambda x: getattr(x, "slug", None) or x.name)
def test_timing_cheats_pass_kata_run_as_their_header_says(runner, problem, path):
    """A timing cheat computes right answers on the correctness cases; only the benchmark refuses it."""
    text = path.read_text(encoding="utf-8")
    assert expected_verdict(path) == "accepted" and re.search(r"^# bench: rejected", text, re.M)
    assert runner.run(problem, text, path).verdict == "accepted"


def test_forbidden_import_is_refused_before_anything_runs(pool, tmp_path):
    problem = CATALOG.problems["fused-row-softmax"]
    path = tmp_path / "softmax.py"
    path.write_text("import torch\nimport os\n\ndef softmax_rows(x):\n    return torch.softmax(x, -1)\n")
    report = _bench(pool, problem, path)
    assert not report.correct and report.line == 2 and "os" in report.gate_message and not report.shapes


def test_a_cancelled_benchmark_says_so(pool):
    problem = CATALOG.problems["fused-row-softmax"]
    cancel = CancelToken()
    cancel.cancel()
    report = _bench(pool, problem, REPO / "kernels" / "softmax.py", cancel=cancel)
    assert report.cancelled and not report.correct and report.gate_message == "cancelled"


def test_kata_bench_json_on_the_cpu(tmp_path):
    """The CLI contract: correct, and every figure null without CUDA."""
    if CUDA:
        pytest.skip("on a GPU the figures are real numbers")
    result = subprocess.run([sys.executable, "-m", "infrakata.core.cli", "bench", str(REPO / "kernels" / "softmax.py"),
                             "--problem", "fused-row-softmax", "--json"],
                            capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["problem"] == "fused-row-softmax" and data["correct"] is True
    assert {k: data[k] for k in ("geomean_gbps", "roofline_gbps", "fraction_of_roofline", "reference_gbps",
                                 "speedup_vs_reference")} == dict.fromkeys(
        ("geomean_gbps", "roofline_gbps", "fraction_of_roofline", "reference_gbps", "speedup_vs_reference"))
    assert [s["shape"] for s in data["shapes"]] == [[1, 1], [5, 7], [33, 1000], [8, 4096]]
    assert all(s["check"] == "passed" and s["gbps"] is None for s in data["shapes"])
    # The performance gate has no figure to hold to: skipped, and said so; the run is still accepted.
    assert (data["gate"], data["performance"], data["accepted"]) == ("50% of the copy roofline", "skipped", True)
    assert "throughput needs a CUDA GPU" in data["notes"][0]
    assert data["notes"][1] == "the performance gate (50% of the copy roofline) was skipped: it needs a CUDA GPU"


# -- the parent's checks on what a solution's process reports ---------------------------------------

def test_honest_repetitions_give_the_best_device_time():
    assert bench.trusted_ms([(1.30, 1.36), (1.21, 1.27), (1.25, 1.31)], where="s") == 1.21


@pytest.mark.parametrize("reps,reason", [
    ([(1.2, 0.3)], "tampered"),  # more device time than the worker's own clock saw around the call
    ([(None, 1.0)], "no positive device time"),
])
def test_implausible_repetitions_are_rejected(reps, reason):
    with pytest.raises(Rejected, match=reason):
        bench.trusted_ms(reps, "timed shape (7,)")


def test_an_honest_repetition_agrees_with_the_graders_clock():
    """1.3 ms on the device, 4 ms of preparation (the reference needs 3.5), 0.4 of pipes and launches."""
    bench.within_host_clock((1.3, 1.36), host_ms=5.7, reference_overhead_ms=3.5, where="s")


def test_the_device_spin_before_the_start_event_is_the_graders_to_subtract():
    """A 2 ms spin queued before the start event is in the grader's time around the request: an honest
    repetition is accepted with it, and the same spin unaccounted for would read as work off the stream."""
    bench.within_host_clock((1.3, 3.36), host_ms=11.9, reference_overhead_ms=3.5, where="s", spin_ms=2.0)
    with pytest.raises(Rejected, match="0 ms device spin"):
        bench.within_host_clock((1.3, 3.36), host_ms=11.9, reference_overhead_ms=3.5, where="s", spin_ms=0.0)
    with pytest.raises(Rejected, match="2 ms device spin"):  # and what is beyond the spin is still seen
        bench.within_host_clock((1.3, 3.36), host_ms=13.9, reference_overhead_ms=3.5, where="s", spin_ms=2.0)


@pytest.mark.parametrize("device_ms,host_ms,reason", [
    (400.0, 300.0, "grader measured"),  # more device time than this process's own clock saw
    (0.01, 40.0, "timed CUDA stream"),  # the work ran off the timed stream, or ahead of the timer
    (None, 40.0, "no positive device time"),
])
def test_a_repetition_the_graders_clock_contradicts_is_rejected(device_ms, host_ms, reason):
    with pytest.raises(Rejected, match=reason):
        bench.within_host_clock((device_ms, 1.0), host_ms=host_ms, reference_overhead_ms=3.5, where="timed shape (7,)")


def test_a_figure_above_the_copy_roofline_is_impossible():
    bench.possible_figure(ShapeResult((7,), "timed", ms=1.0, throughput=4300.0), roofline=4000.0, launch_floor_ms=None)
    with pytest.raises(Rejected, match="impossible figure: 4500.0 GB/s is above the device's copy bandwidth"):
        bench.possible_figure(ShapeResult((7,), "timed", ms=1.0, throughput=4500.0), roofline=4000.0,
                              launch_floor_ms=None)


def test_a_time_under_the_launch_floor_is_impossible():
    """A TFLOP/s problem has no copy roofline: a kernel timed at less than half an empty launch (a clock stubbed
    to a few nanoseconds, say) is refused all the same, and nothing of its figure is printed."""
    floor_ms = 0.004  # one launch writing one byte, as this run measured it
    bench.possible_figure(ShapeResult((7,), "timed", ms=0.003, throughput=900.0), roofline=None,
                          launch_floor_ms=floor_ms)
    with pytest.raises(Rejected, match=r"impossible figure: 0\.50 us on the device, under the 4\.00 us"):
        bench.possible_figure(ShapeResult((7,), "timed", ms=0.0005, throughput=9e6), roofline=None,
                              launch_floor_ms=floor_ms)


def _timed_report(geomean: float) -> BenchReport:
    return BenchReport("quantized-adamw-8bit", "sol.py", "GB/s", device="NVIDIA H200 (CUDA)", correct=True,
                       gate_message="all shapes pass", geomean=geomean, roofline=4000.0, reference=400.0,
                       shapes=[ShapeResult((146484,), "timed", ms=1.25, median_ms=1.3, stdev_ms=0.05,
                                           throughput=geomean, reference_ms=12.5)])


def test_best_figure_per_problem_and_device_is_kept(tmp_path):
    assert bench.record_best(tmp_path, _timed_report(3000.0)) == 3000.0
    assert bench.record_best(tmp_path, _timed_report(2500.0)) == 3000.0
    assert bench.record_best(tmp_path, _timed_report(3200.0)) == 3200.0
    store = tmp_path / ".kata" / "history.sqlite"
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT device, geomean, roofline FROM bench_best WHERE problem = ?",
                          ("quantized-adamw-8bit",)).fetchall()
    assert rows == [("NVIDIA H200 (CUDA)", 3200.0, 4000.0)]


def test_timed_report_as_text_and_json():
    report = _timed_report(3000.0)
    text = format_bench(report)
    assert "geomean 3000.0 GB/s = 75.0% of the copy roofline 4000.0 GB/s; 7.50x the eager reference" in text
    data = bench.bench_to_dict(report)
    assert (data["fraction_of_roofline"], data["speedup_vs_reference"]) == (0.75, 7.5)
    # The best repetition gives the figure; the median and the spread say how steady the runs were.
    assert "  (146484,)            1.250       1.300    ±0.050      3000.0         12.500" in text
    assert data["shapes"] == [{"shape": [146484], "kind": "timed", "ms": 1.25, "median_ms": 1.3, "stdev_ms": 0.05,
                               "gbps": 3000.0, "reference_ms": 12.5, "check": "passed"}]


def test_a_speed_up_report_as_text_gives_both_times_and_the_speed_up():
    """KernelBench's and LeetGPU's figure is a speed-up over the reference: the times in ms, then the speed-up."""
    report = BenchReport("leetgpu-3-row-softmax", "sol.py", "x reference_impl", device="NVIDIA H100 (CUDA)",
                         correct=True, gate_message="all 4 tests and 5 repetitions pass", geomean=2.5, reference=1.0,
                         shapes=[ShapeResult((64, 130), "timed", ms=0.02, median_ms=0.021, stdev_ms=0.001,
                                             throughput=2.5, reference_ms=0.05)],
                         notes=["timed here as every kata bench times"])
    text = format_bench(report).splitlines()
    assert text[2:] == [
        "  shape              best ms   median ms    spread  x reference_impl   reference ms",
        "  (64, 130)            0.020       0.021    ±0.001              2.50          0.050",
        "speed-up 2.50x reference_impl",
        "note: timed here as every kata bench times"]


# -- the performance gate, judged from a report's figures (on a GPU they come from the timed run) ------

@pytest.mark.parametrize("geomean,gate,performance,line", [
    (3000.0, Gate(roofline=0.5), "accepted",
     "accepted: 3000.0 GB/s, 75.0% of roofline, 7.50x eager (the gate: 50% of the copy roofline)"),
    (1500.0, Gate(roofline=0.5), "below_gate",
     "correct, below the gate: 1500.0 GB/s, 37.5% of roofline, 3.75x eager (the gate: 50% of the copy roofline)"),
    (3000.0, Gate(speedup=4.0), "accepted", "accepted: 3000.0 GB/s, 75.0% of roofline, 7.50x eager (the gate: 4x "
                                            "the eager reference)"),
    (3000.0, Gate(speedup=10.0), "below_gate", "correct, below the gate: 3000.0 GB/s, 75.0% of roofline, 7.50x "
                                               "eager (the gate: 10x the eager reference)"),
])
def test_a_correct_kernel_is_held_to_its_gate(geomean, gate, performance, line):
    report = _timed_report(geomean)
    bench.judge_performance(report, gate)
    assert report.performance == performance and report.accepted == (performance == "accepted")
    text = format_bench(report).splitlines()
    assert text[1] == line  # the verdict first, under the header
    data = bench.bench_to_dict(report)
    assert (data["performance"], data["accepted"], data["correct"]) == (performance, performance == "accepted", True)


def test_exactly_at_the_gate_is_accepted():
    report = _timed_report(2000.0)
    bench.judge_performance(report, Gate(roofline=0.5))
    assert report.performance == "accepted"


def test_the_gate_is_skipped_without_figures_and_never_judges_a_rejected_run():
    cpu = BenchReport("fused-row-softmax", "sol.py", "GB/s", device="cpu (Triton interpreter)", correct=True)
    bench.judge_performance(cpu, Gate(roofline=0.5))
    assert cpu.performance == "skipped" and cpu.accepted
    assert "the performance gate (50% of the copy roofline) was skipped: it needs a CUDA GPU" in format_bench(cpu)
    rejected = BenchReport("fused-row-softmax", "sol.py", "GB/s", correct=False, gate_message="x")
    bench.judge_performance(rejected, Gate(roofline=0.5))
    assert rejected.performance is None and not rejected.accepted
    ungated = _timed_report(10.0)
    bench.judge_performance(ungated, None)
    assert ungated.performance is None and ungated.accepted
    assert "gate" not in format_bench(ungated).splitlines()[1]


@pytest.mark.parametrize("table,words", [
    ("roofline = 0.5\nspeedup = 2.0\n", "set exactly one of roofline"),
    ("", "set exactly one of roofline"),
    ("roofline = 1.5\n", "a fraction of the roofline in (0, 1]"),
])
def test_a_malformed_gate_is_named_with_its_file_and_line(tmp_path, table, words):
    source = CATALOG.problems["fused-row-softmax"].folder
    folder = tmp_path / "fused-row-softmax"
    folder.mkdir()
    for name in ("reference.py", "cases.py", "README.md"):
        (folder / name).write_text((source / name).read_text(encoding="utf-8"), encoding="utf-8")
    toml = (source / "problem.toml").read_text(encoding="utf-8")
    toml = toml[:toml.index("[benchmark.gate]")] + "[benchmark.gate]\n" + table
    toml = toml.replace('model_solution = "../../kernels/softmax.py"\n', "")
    (folder / "problem.toml").write_text(toml, encoding="utf-8")
    with pytest.raises(ProblemError, match=re.escape(words)) as error:
        load_native(folder)
    assert str(folder / "problem.toml") in str(error.value)


# -- on a GPU --------------------------------------------------------------------------------------

@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_cuda_figures_are_plausible(pool, tmp_path):
    """The whole timed protocol on the quickest problem; benchmarks/gpu_check.sh benchmarks them all."""
    problem = CATALOG.problems["fused-row-softmax"]
    report = _bench(pool, problem, REPO / "kernels" / OURS[problem.slug], workspace=tmp_path)
    assert report.correct, report.gate_message
    assert len([s for s in report.shapes if s.kind == "timed"]) == len(problem.benchmark.shapes)
    assert 0 < report.fraction_of_roofline <= bench.ROOFLINE_SLACK
    assert report.speedup_vs_reference > 1
    assert report.performance == "accepted", format_bench(report)  # our kernel clears its own gate
    assert report.best == report.geomean


def _wrapping_our_softmax(path: Path, wrapper: str) -> Path:
    """A solution: our softmax kernel's own source (a solution cannot import it: kernels/ holds answers),
    its entry point renamed `fused`, then `wrapper`, which defines softmax_rows around it."""
    ours = (REPO / "kernels" / OURS["fused-row-softmax"]).read_text().replace("def softmax_rows(", "def fused(")
    path.write_text(f"{ours}\n\n{wrapper}")
    return path


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_cuda_work_on_a_side_stream_is_rejected(pool, tmp_path):
    """The kernel runs on another stream, so the timed stream's events see nothing."""
    problem = CATALOG.problems["fused-row-softmax"]
    path = _wrapping_our_softmax(tmp_path / "side_stream.py", "def softmax_rows(x):\n"
                                 "    stream = torch.cuda.Stream()\n"
                                 "    stream.wait_stream(torch.cuda.current_stream())\n"
                                 "    with torch.cuda.stream(stream):\n"
                                 "        return fused(x)\n")
    report = _bench(pool, problem, path)
    assert not report.correct and "timed CUDA stream" in report.gate_message


def test_a_call_that_leaves_a_thread_running_is_rejected(pool, tmp_path):
    """Right output, but a thread the call started runs on after it returns: its work is in no repetition's
    time, and on CUDA its writes would reach the output the grader checks through IPC. (The kata's eager rule
    refuses a thread outright: lifted here, so that what is tried is the benchmark's own check.)"""
    problem = CATALOG.problems["fused-row-softmax"]
    eager_allowed = replace(problem, grading=replace(problem.grading, eager="any"))
    path = _wrapping_our_softmax(tmp_path / "leaves_a_thread.py", "import threading\nimport time\n\n\n"
                                 "def softmax_rows(x):\n"
                                 "    threading.Thread(target=time.sleep, args=(0.5,)).start()\n"
                                 "    return fused(x)\n")
    report = _bench(pool, eager_allowed, path)
    assert not report.correct and "the call left a thread it started running after it returned" in \
        report.gate_message, report.gate_message


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_a_slow_first_call_is_in_no_repetitions_time(pool, tmp_path):
    """What the warm-up takes (a compile, an autotuning: here half a second) is a request of its own, so
    the grader's clock check does not mistake it for work hidden from the timed stream."""
    problem = CATALOG.problems["fused-row-softmax"]
    path = _wrapping_our_softmax(tmp_path / "autotunes.py", "import time\n_seen = set()\n\n\n"
                                 "def softmax_rows(x):\n"
                                 "    if x.shape not in _seen:\n"
                                 "        _seen.add(x.shape)\n"
                                 "        time.sleep(0.5)\n"
                                 "    return fused(x)\n")
    report = _bench(pool, problem, path, workspace=tmp_path)
    assert report.correct, report.gate_message


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_one_fast_wrong_repetition_among_right_ones_is_rejected(pool, tmp_path):
    """The first timed repetition of each shape (its fourth call, after three warm-ups) returns at once,
    uninitialised; every other call is right. Each repetition's output is checked, so the fast one fails."""
    problem = CATALOG.problems["fused-row-softmax"]
    path = _wrapping_our_softmax(tmp_path / "one_fast_rep.py", "_calls = {}\n\n\n"
                                 "def softmax_rows(x):\n"
                                 "    _calls[x.shape] = _calls.get(x.shape, 0) + 1\n"
                                 "    if _calls[x.shape] == 4 and x.numel() >= 1 << 20:\n"
                                 "        return torch.empty_like(x)\n"
                                 "    return fused(x)\n")
    report = _bench(pool, problem, path)
    assert not report.correct and "timed shape" in report.gate_message
    assert f"repetition 1 of {bench.REPS}" in report.gate_message


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_work_launched_after_the_timer_stops_is_rejected(pool, tmp_path):
    """The call returns an unfinished output and a thread launches the kernel that fills it a moment later,
    after the end event: what the events time is nothing, and the output may be right by the time it is
    checked. (Under the kata's eager rule a thread is refused outright: the rule is lifted here, so that what
    is tried is the benchmark's own check.)"""
    problem = CATALOG.problems["fused-row-softmax"]
    eager_allowed = replace(problem, grading=replace(problem.grading, eager="any"))
    path = _wrapping_our_softmax(tmp_path / "after_the_timer.py", "import threading\nimport time\n\n\n"
                                 "def softmax_rows(x):\n"
                                 "    out = torch.empty_like(x)\n\n"
                                 "    def finish():\n"
                                 "        time.sleep(0.001)\n"
                                 "        out.copy_(fused(x))\n"
                                 "        torch.cuda.synchronize()\n\n"
                                 "    threading.Thread(target=finish).start()\n"
                                 "    return out\n")
    report = _bench(pool, eager_allowed, path)
    assert not report.correct, format_bench(report)


# -- what a benchmark leaves behind, and what it keeps -----------------------------------------------

def _exported_with_counter(name: str) -> dict:
    from infrakata.core.sandbox import cuda_ipc

    return {cuda_ipc.IPC: [[4], [1], 0, "float32", 0, "00", 16, 0, name.encode().hex(), 0, None, False]}


def test_the_solutions_ipc_counter_files_are_removed_after_the_benchmark(tmp_path):
    """torch leaves a reference-counter file in /dev/shm for every process that shares a CUDA tensor, and a
    killed worker never removes it; the grader removes the ones the solution's process made, and only those."""
    made, foreign, nested = tmp_path / "torch_12_345_0", tmp_path / "torch_12_999_0", tmp_path / "torch_12_777_1"
    for path in (made, foreign, nested):
        path.write_bytes(b"\0" * 8)
    other = tmp_path / "passwd"
    other.write_text("keep")
    shared = bench.SharedFiles(tmp_path)
    if os.geteuid() == 0:
        os.chown(foreign, 12345, 12345)  # another process's file (as root: every worker has a uid of its own)
    outputs = ([_exported_with_counter("/torch_12_345_0"), _exported_with_counter("/torch_12_999_0")],
               {"m": _exported_with_counter("/torch_12_777_1")}, _exported_with_counter("/../passwd"))
    shared.note(outputs, os.getpid())
    shared.remove()
    assert not made.exists() and not nested.exists()
    assert other.read_text() == "keep"
    assert foreign.exists() == (os.geteuid() == 0)


def test_the_references_time_is_kept_per_problem_version_and_device(tmp_path, catalog):
    problem = catalog.problems["quantized-adamw-8bit"]
    bench.ReferenceTimes(tmp_path, problem, "NVIDIA H200 (CUDA)").record((146484,), 12.5)
    assert bench.ReferenceTimes(tmp_path, problem, "NVIDIA H200 (CUDA)").known == {(146484,): 12.5}
    assert bench.ReferenceTimes(tmp_path, problem, "NVIDIA H100 (CUDA)").known == {}
    changed = replace(problem, reference_source=problem.reference_source + "\n# changed\n")
    assert bench.ReferenceTimes(tmp_path, changed, "NVIDIA H200 (CUDA)").known == {}


def test_a_benchmark_the_sandbox_refuses_is_a_grading_error_saying_why(pool, tmp_path, catalog):
    """Strict isolation without a layer (or a GPU whose compute mode allows one process) refuses the
    benchmark as the editor's command and the batch report it: a GradingError naming the problem."""
    from infrakata.core.errors import GradingError
    from infrakata.core.sandbox.protocol import Layer

    problem = catalog.problems["fused-row-softmax"]
    path = tmp_path / "softmax.py"
    path.write_text(problem.starter)
    pool.wait_ready()
    found, mode = pool.isolation_layers, pool.isolation
    pool.isolation, pool.isolation_layers = "strict", (*found[:-1], Layer("seccomp", False, "libseccomp is missing"))
    try:
        with pytest.raises(GradingError, match="fused-row-softmax: cannot benchmark: .*seccomp"):
            bench.run_benchmark(problem, path.read_text(), path, pool, shapes=[])
    finally:
        pool.isolation, pool.isolation_layers = mode, found
