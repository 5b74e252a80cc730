"""The kernelbench problem kind: KernelBench files (tests/fixtures/kernelbench/level1, small problems written
for these tests) loaded unchanged, a ModelNew graded on seeded trials through real workers and the real
`kata` binary, and the hacks KernelBench and its users report, one test each."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from infrakata.core.catalog.loading import Catalog, load_problem
from infrakata.core.errors import GradingError
from infrakata.core.grading.kinds import kernelbench

# Not imported from tests/conftest.py: a second import of it, under another name, would give this process a
# second per-user store, which the servers started earlier do not share.
KATA = Path(sys.executable).with_name("kata")
FIXTURES = Path(__file__).parents[1] / "fixtures" / "kernelbench"
LEVEL1 = FIXTURES / "level1"
LINEAR = LEVEL1 / "1_Linear_scale.py"
LEAKY = LEVEL1 / "2_Leaky_relu.py"
CUDA = torch.cuda.is_available()


def grade(runner, problem_path: Path, solution: Path, **options):
    return runner.run(load_problem(problem_path), solution.read_text(encoding="utf-8"), solution, **options)


def hack(runner, name: str):
    return grade(runner, LINEAR, FIXTURES / "hacks" / f"{name}.py")


def line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


# -- loading ---------------------------------------------------------------------------------------

def test_a_level_folder_loads_each_file_as_a_problem():
    catalog = Catalog.load([LEVEL1], include_bundled=False)
    assert catalog.errors == []
    assert sorted(catalog.problems) == ["level1-1-linear-scale", "level1-2-leaky-relu", "level1-3-huge-relu"]
    problem = catalog.problems["level1-1-linear-scale"]
    # KernelBench's tolerance for fp32 since v0.2 (its inputs are fp32): get_tolerance_for_precision's.
    assert (problem.kind, problem.entry_point, problem.atol, problem.rtol) == ("kernelbench", "ModelNew", 1e-4, 1e-4)
    assert problem.source_path == LINEAR.resolve()
    assert "class Model(nn.Module)" in problem.statement  # the reference is the statement


def test_a_single_file_loads_and_its_starter_is_rejected(runner):
    problem = load_problem(LEAKY)
    assert problem.slug == "level1-2-leaky-relu"
    assert "class ModelNew(nn.Module)" in problem.starter and "raise NotImplementedError" in problem.starter
    assert "super(ModelNew, self).__init__()" in problem.starter and "leaky_relu" not in problem.starter
    report = runner.run(problem, problem.starter, LEAKY.parent / "starter.py")
    assert report.verdict == "runtime_error"
    assert "NotImplementedError" in report.cases[0].message


def test_a_malformed_file_names_its_line_and_the_others_still_load(tmp_path):
    level = tmp_path / "level2"
    level.mkdir()
    shutil.copy(LINEAR, level / "1_Linear_scale.py")
    (level / "2_Broken.py").write_text("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x)\n"
                                       "        return x\n\ndef get_inputs():\n    return []\n", encoding="utf-8")
    (level / "3_No_init_inputs.py").write_text("import torch\n\nclass Model(torch.nn.Module):\n"
                                               "    def forward(self, x):\n        return x\n\n"
                                               "def get_inputs():\n    return []\n", encoding="utf-8")
    (level / "helpers.py").write_text("def unrelated():\n    return 1\n", encoding="utf-8")  # not a problem
    catalog = Catalog.load([level], include_bundled=False)
    assert list(catalog.problems) == ["level2-1-linear-scale"]
    messages = sorted(str(error) for error in catalog.errors)
    assert messages[0].startswith(f"{level / '2_Broken.py'}:4: does not parse as Python: expected ':'")
    assert messages[1].startswith(f"{level / '3_No_init_inputs.py'}:1: defines no get_init_inputs at its top "
                                  f"level; a KernelBench problem has class Model(nn.Module)")


# -- grading ---------------------------------------------------------------------------------------

def test_trials_follow_kernelbench_seeds():
    torch.manual_seed(42)  # KernelBench's run_and_check_correctness, with its seed_num
    expected = [torch.randint(0, 2**32 - 1, (1,)).item() for _ in range(5)]
    assert kernelbench.trial_seeds() == expected
    assert kernelbench.case_names()[0] == f"trial 1 (seed {expected[0]})"


def test_a_correct_model_new_is_accepted_through_kata_run(tmp_path):
    solution = FIXTURES / "solutions" / "linear_scale.py"
    done = subprocess.run([str(KATA), "--problems", str(LEVEL1), "run", str(solution), "--json"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False,
                          env={**os.environ, "COLUMNS": "200"})
    report = json.loads(done.stdout)
    assert (done.returncode, report["problem"], report["verdict"]) == (0, "level1-1-linear-scale", "accepted")
    assert [case["name"] for case in report["cases"]][-1].startswith("fresh inputs")
    assert len(report["cases"]) == 6


# 96 MiB of input per trial, summed to 24 numbers: what a grader that made the trials' inputs itself would hold.
ROW_SUMS = """import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum(dim=1)


batch_size = 24
dim = 1 << 20


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the process tree's peak memory")
def test_the_grader_sends_seeds_and_holds_no_trials_inputs(tmp_path):
    """The grader makes one trial's inputs at a time, into the memory it shares with the solution's worker, and
    keeps no trial's bytes besides: six trials of 96 MiB, and the process tree peaks at about one trial's inputs
    twice (and torch), never at the trials' inputs."""
    problem = tmp_path / "1_Row_sums.py"
    problem.write_text(ROW_SUMS, encoding="utf-8")
    solution = tmp_path / "solution.py"
    solution.write_text(ROW_SUMS.replace("class Model(", "class ModelNew("), encoding="utf-8")
    # The peak resident size of `kata run` and everything it started, reaped: a process of its own measures it.
    measure = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
               "print(done.stdout); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", measure, str(KATA), "run", str(solution), "--problem", str(problem),
                           "--json"], capture_output=True, text=True, timeout=600, cwd=tmp_path, check=True)
    *report, peak_kib = done.stdout.strip().splitlines()
    assert json.loads("\n".join(report))["verdict"] == "accepted"
    assert int(peak_kib) < 700 * 1024, f"peak {int(peak_kib) >> 10} MiB"


@pytest.mark.skipif(CUDA, reason="without CUDA only: there the speed-up is measured")
def test_kata_bench_rejects_a_wrong_model_new_on_its_trial_and_line(tmp_path):
    solution = FIXTURES / "solutions" / "leaky_relu_wrong_slope.py"
    done = subprocess.run([str(KATA), "--problems", str(LEVEL1), "bench", str(solution), "--json"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False)
    report = json.loads(done.stdout)
    assert (done.returncode, report["correct"], report["speedup_vs_reference"]) == (1, False, None)
    assert report["gate_message"].startswith(kernelbench.case_names()[0] + ": out[")
    assert report["line"] == line_of(solution, "return torch.where")


def _bench(solution: Path, tmp_path: Path) -> tuple[int, dict]:
    done = subprocess.run([str(KATA), "--problems", str(LEVEL1), "bench", str(solution), "--json"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False)
    return done.returncode, json.loads(done.stdout)


@pytest.mark.skipif(CUDA, reason="without CUDA only: there the repetitions are timed")
def test_kata_bench_without_cuda_checks_every_repetition_untimed(tmp_path):
    code, report = _bench(FIXTURES / "solutions" / "leaky_relu_triton.py", tmp_path)
    assert (code, report["correct"], report["gate_message"]) == (0, True, "all 6 trials and 2 repetitions pass")
    [repetitions] = report["shapes"]
    assert (repetitions["shape"], repetitions["kind"], repetitions["ms"]) == ([16, 64], "correctness", None)
    assert report["speedup_vs_reference"] is None and report["speedup_vs_compiled"] is None


def test_a_model_new_right_when_graded_and_wrong_when_timed_is_rejected_by_the_benchmark(runner, tmp_path):
    """The benchmark checks every repetition's output, not only the graded trials'."""
    solution = FIXTURES / "hacks" / "wrong_when_timed.py"
    assert grade(runner, LINEAR, solution).verdict == "accepted"
    code, report = _bench(solution, tmp_path)
    assert (code, report["correct"]) == (1, False)
    assert report["gate_message"].startswith(f"repetition 1 of {2 if not CUDA else 5} (the inputs of seed 10000): out[")


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_kata_bench_on_cuda_gives_the_speed_ups_over_model_and_its_compiled_form(tmp_path):
    code, report = _bench(FIXTURES / "solutions" / "linear_scale.py", tmp_path)
    assert (code, report["correct"], report["unit"]) == (0, True, "x eager"), report
    [repetitions] = report["shapes"]
    assert repetitions["kind"] == "timed" and repetitions["ms"] > 0 and repetitions["reference_ms"] > 0
    assert report["speedup_vs_reference"] > 0 and report["speedup_vs_compiled"] > 0
    assert report["device"].endswith("(CUDA)")


def test_a_triton_model_new_runs_through_the_interpreter(runner):
    report = grade(runner, LEAKY, FIXTURES / "solutions" / "leaky_relu_triton.py")
    assert report.verdict == "accepted", report.cases
    assert report.passed == report.total == 6


def test_a_wrong_model_new_is_rejected_on_the_trial_and_line_that_show_it(runner):
    solution = FIXTURES / "solutions" / "leaky_relu_wrong_slope.py"
    report = grade(runner, LEAKY, solution, values=True)
    assert report.verdict == "wrong_answer"
    first = report.cases[0]
    assert (first.id, first.status, first.name) == (1, "failed", kernelbench.case_names()[0])
    assert first.line == line_of(solution, "return torch.where")
    assert re.search(r"out\[\d+, \d+\]: expected -?[\d.]+, got -?[\d.]+", first.message)
    assert "atol 1e-04 + rtol 1e-04" in first.message
    assert any(value.kind == "argument" and value.name == "x" for value in first.values)
    hidden = report.cases[-1]
    assert hidden.status == "failed" and hidden.expected is None and "hidden" in hidden.message


SCALE_BY_TWO = """import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * 2


def get_inputs():
    return [torch.randn(64, 64, dtype=torch.DTYPE)]


def get_init_inputs():
    return []
"""
HALF_A_PERCENT_OFF = SCALE_BY_TWO.split("\n\n\ndef get_inputs")[0].replace("class Model(", "class ModelNew(").replace(
    "x * 2", "x * 2.01")


@pytest.mark.parametrize(("dtype", "verdict", "tolerance"), [("float32", "wrong_answer", "1e-04"),
                                                             ("float16", "accepted", "1e-02"),
                                                             ("bfloat16", "accepted", "1e-02")])
def test_the_tolerance_is_kernelbenchs_for_the_inputs_precision(runner, tmp_path, dtype, verdict, tolerance):
    """fp32 1e-4, fp16 and bf16 1e-2 (KernelBench's get_tolerance_for_precision): an output 0.5% off is wrong on
    fp32 inputs and within the tolerance on half-precision ones. The statement says the rule."""
    problem_path = tmp_path / f"1_Scale_{dtype}.py"
    problem_path.write_text(SCALE_BY_TWO.replace("DTYPE", dtype), encoding="utf-8")
    solution = tmp_path / "solution.py"
    solution.write_text(HALF_A_PERCENT_OFF, encoding="utf-8")
    report = grade(runner, problem_path, solution)
    assert report.verdict == verdict, [case.message for case in report.cases]
    if verdict == "wrong_answer":
        assert f"atol {tolerance} + rtol {tolerance}" in report.cases[0].message
    assert "1e-04 where the inputs are fp32, 1e-02 where they are fp16 or bf16" in load_problem(problem_path).statement


def test_v0_1s_tolerance_is_an_option_to_reproduce_its_results(tmp_path):
    """INFRAKATA_KERNELBENCH_TOLERANCE=v0.1 grades fp32 at 1e-2, as KernelBench v0.1 did; a value it does not know
    is refused, naming the variable and the values it takes."""
    problem_path = tmp_path / "1_Scale.py"
    problem_path.write_text(SCALE_BY_TWO.replace("DTYPE", "float32"), encoding="utf-8")
    solution = tmp_path / "solution.py"
    solution.write_text(HALF_A_PERCENT_OFF, encoding="utf-8")

    def run(tolerance: str | None) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if k != "INFRAKATA_KERNELBENCH_TOLERANCE"}
        env.update({"INFRAKATA_KERNELBENCH_TOLERANCE": tolerance} if tolerance is not None else {})
        return subprocess.run([str(KATA), "run", str(solution), "--problem", str(problem_path), "--json"],
                              capture_output=True, text=True, timeout=240, env=env, check=False)

    assert json.loads(run(None).stdout)["verdict"] == "wrong_answer"
    assert json.loads(run("v0.1").stdout)["verdict"] == "accepted"
    refused = run("0.01")
    assert refused.returncode == 2
    assert "INFRAKATA_KERNELBENCH_TOLERANCE='0.01'" in refused.stderr and "precision or v0.1" in refused.stderr


RELU_OF_RAND = SCALE_BY_TWO.replace("x * 2", "torch.relu(x)").replace("torch.randn(64, 64, dtype=torch.DTYPE)",
                                                                     "torch.rand(64, 64)")


def test_check_problems_warns_where_a_trivial_output_would_pass(tmp_path):
    """ReLU on torch.rand's inputs (never negative) is the identity; outputs within the tolerance of zero make
    torch.zeros right: each problem passes, with a warning that says why it is weak and what to change."""
    folder = tmp_path / "level1"
    folder.mkdir()
    (folder / "1_ReLU.py").write_text(RELU_OF_RAND, encoding="utf-8")
    (folder / "2_Tiny.py").write_text(SCALE_BY_TWO.replace("x * 2", "x * 1e-6").replace("DTYPE", "float32"),
                                      encoding="utf-8")
    (folder / "3_ReLU.py").write_text(RELU_OF_RAND.replace("torch.rand(", "torch.randn("), encoding="utf-8")
    done = subprocess.run([str(KATA), "check-problems", str(folder)], capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    warnings = [line for line in done.stdout.splitlines() if "warning:" in line]
    assert len(warnings) == 2, done.stdout
    identity, zeros = warnings
    assert "1_ReLU.py: a ModelNew returning its input x unchanged is within atol = rtol = 1e-04" in identity
    assert "torch.randn rather than torch.rand" in identity
    assert "2_Tiny.py: a ModelNew returning zeros" in zeros and "scale them up" in zeros


def test_an_error_in_forward_is_placed_on_its_line(runner, tmp_path):
    solution = tmp_path / "raises.py"
    solution.write_text("import torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n"
                        "    def __init__(self, negative_slope=0.01):\n        super().__init__()\n\n"
                        "    def forward(self, x):\n        return x.no_such_method()\n", encoding="utf-8")
    report = grade(runner, LEAKY, solution)
    assert report.verdict == "runtime_error"
    assert (report.cases[0].line, report.entry_line) == (9, 4)
    assert "AttributeError" in report.cases[0].message


def test_inputs_over_the_cpu_budget_are_refused_naming_the_sizes(runner):
    if CUDA:
        pytest.skip("on CUDA the problem runs as given")
    with pytest.raises(GradingError) as refused:
        grade(runner, LEVEL1 / "3_Huge_relu.py", FIXTURES / "solutions" / "linear_scale.py")
    message = str(refused.value)
    assert "a trial's inputs take 6,144 MiB (4096x393216 float32)" in message
    assert "batch_size = 4096 (line 16), dim = 393216 (line 17)" in message
    assert "machine with CUDA" in message


# -- the hacks -------------------------------------------------------------------------------------

def test_a_zero_output_is_rejected(runner):
    report = hack(runner, "zero_output")
    assert report.verdict == "wrong_answer" and report.cases[0].status == "failed"


def test_an_uninitialised_output_is_rejected(runner):
    # The reference never runs in the solution's process: no freed output of its is there to be reused.
    report = hack(runner, "uninitialised_output")
    assert report.verdict == "wrong_answer" and report.cases[0].status == "failed"


def test_a_result_replayed_from_an_earlier_trial_is_rejected(runner):
    report = hack(runner, "replays_first_result")
    assert report.verdict == "wrong_answer"
    assert [case.status for case in report.cases[:2]] == ["passed", "failed"]


def test_the_reference_output_is_nowhere_in_the_solution_process(runner):
    # Its callers' locals and every object the garbage collector knows: the reference ran elsewhere.
    report = hack(runner, "finds_reference_output")
    assert report.verdict == "wrong_answer"
    assert "got 0" in report.cases[0].message


@pytest.mark.parametrize("name", ["modifies_input", "rebinds_the_comparison", "rebinds_the_trial"])
def test_an_input_changed_in_place_is_rejected_whatever_the_solution_rebinds(runner, name):
    """The grader reads the inputs back from the memory it made them in: nothing in the solution's process (the
    harness's comparison, its trial function) decides whether they changed."""
    report = hack(runner, name)
    assert report.verdict == "wrong_answer", [case.message for case in report.cases]
    assert report.cases[0].message.startswith("forward wrote to input 0 (x) in place")


def test_an_output_finished_by_a_thread_after_the_call_is_rejected(runner):
    # The output is read as the call returns; a thread that fills it later fills a copy nobody reads.
    report = hack(runner, "finishes_after_return")
    assert report.verdict == "wrong_answer" and report.cases[0].status == "failed"


def test_inheriting_the_reference_fails_for_it_is_not_there(runner):
    report = hack(runner, "subclasses_reference")
    assert report.verdict == "runtime_error"
    assert "NameError: name 'Model' is not defined" in report.cases[0].message


def test_a_compiled_extension_is_refused_on_its_import_saying_why(runner):
    """load_inline needs a compiler the sandbox does not hold: refused before anything runs, on its line."""
    report = grade(runner, LEAKY, FIXTURES / "hacks" / "compiles_an_extension.py")
    assert report.verdict == "forbidden"
    [finding] = report.findings
    assert finding.line == 4 and "torch.utils.cpp_extension" in finding.message
    assert "no compiler" in finding.message and "Triton" in finding.message


def test_a_compiled_extension_imported_past_the_static_check_is_refused_at_run_time(runner, tmp_path):
    source = (FIXTURES / "hacks" / "compiles_an_extension.py").read_text(encoding="utf-8").replace(
        "from torch.utils.cpp_extension import load_inline\n", "import importlib\n").replace(
        "module = load_inline(", "module = importlib.import_module('torch.utils.' + 'cpp_extension').load_inline(")
    solution = tmp_path / "inline.py"
    solution.write_text(source, encoding="utf-8")
    report = grade(runner, LEAKY, solution)
    assert report.verdict == "forbidden", report.cases[0].message
    assert "no compiler" in report.cases[0].message


def test_a_copy_of_the_reference_is_correct_and_never_counted_fast_without_a_gpu(runner):
    from infrakata.core.batch.results_file import fast_p

    report = hack(runner, "copies_reference")
    assert report.verdict == "accepted"
    score = fast_p([{"id": "copy", "problem": report.problem, "verdict": report.verdict}], 1.0)
    assert (score.submissions, score.correct, score.fast, score.unknown, score.share) == (1, 1, 0, 1, None)
    assert score.words() == "fast_1: unknown (1 of 1 correct, 1 without a speed figure: that needs a CUDA GPU)"


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_cuda_work_left_on_a_side_stream_is_synchronised_before_the_output_is_read(runner, tmp_path):
    solution = tmp_path / "side_stream.py"
    solution.write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n"
        "    def __init__(self, in_features, out_features, scale):\n        super().__init__()\n"
        "        self.linear = nn.Linear(in_features, out_features)\n        self.scale = scale\n\n"
        "    def forward(self, x):\n        out = torch.empty(x.shape[0], self.linear.out_features, device=x.device)\n"
        "        stream = torch.cuda.Stream()\n        stream.wait_stream(torch.cuda.current_stream())\n"
        "        with torch.cuda.stream(stream):\n            torch.cuda._sleep(50_000_000)\n"
        "            out.copy_(self.linear(x) * self.scale)\n        return out\n", encoding="utf-8")
    report = grade(runner, LINEAR, solution)
    assert report.verdict == "accepted", report.cases  # its work counts, done before the output is read


def test_kata_grade_bench_runs_a_kernelbench_problems_benchmark_and_reports_fast_p(tmp_path):
    """`kata grade --bench` benchmarks KernelBench problems too (their Model is the baseline): each accepted
    line carries the benchmark, and fast_p is counted from its speed-ups, or said unknown without a figure."""
    submissions = tmp_path / "subs"
    submissions.mkdir()
    for name in ("linear_scale.py", "leaky_relu_triton.py", "leaky_relu_wrong_slope.py"):
        shutil.copy(FIXTURES / "solutions" / name, submissions / name)
    out = tmp_path / "results.jsonl"
    done = subprocess.run([str(KATA), "--problems", str(LEVEL1), "grade", str(submissions), "--bench", "--out",
                           str(out)], capture_output=True, text=True, timeout=600, cwd=tmp_path, check=False,
                          env={**os.environ, "COLUMNS": "200"})
    rows = {row["id"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert {Path(rows[i]["file"]).name: rows[i]["verdict"] for i in rows} == {
        "linear_scale.py": "accepted", "leaky_relu_triton.py": "accepted", "leaky_relu_wrong_slope.py": "wrong_answer"}
    benched = [rows[i]["bench"] for i in sorted(rows) if rows[i]["verdict"] == "accepted"]
    assert all(b["correct"] and b["unit"] == "x eager" for b in benched)
    if CUDA:
        assert all(b["speedup_vs_reference"] > 0 for b in benched)
        assert "fast_1: " in done.stdout and "unknown" not in done.stdout
    else:
        assert all(b["speedup_vs_reference"] is None for b in benched)
        assert "fast_1: unknown (2 of 3 correct, 2 without a speed figure: that needs a CUDA GPU)" in done.stdout
