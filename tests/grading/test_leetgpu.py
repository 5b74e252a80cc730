"""The `leetgpu` kind: a clone of LeetGPU's public set read as it is, at run time. The set itself is not here (its
licence forbids copies): tests/fixtures/leetgpu-set is a few challenges of our own in its format, with an output
graded in place, unsigned integer outputs, a reference that uses the set's shared helpers, a test over the CPU
budget, a performance test within it and one over it, and starters in CUDA C++ besides Triton and PyTorch. Through
the real `kata`, both streams read."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
from conftest import KATA, REPO

SET = REPO / "tests" / "fixtures" / "leetgpu-set"
CUDA = torch.cuda.is_available()

TRITON_SCALE = '''# kata: leetgpu-1-vector-scale
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x, y, n, alpha, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(y + offs, tl.load(x + offs, mask=mask) * alpha, mask=mask)


def solve(X: torch.Tensor, Y: torch.Tensor, N: int, alpha: float):
    BLOCK_SIZE = 1024
    scale_kernel[(triton.cdiv(N, BLOCK_SIZE),)](X, Y, N, alpha, BLOCK_SIZE)
'''

TRITON_SOFTMAX = '''# kata: leetgpu-3-row-softmax
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x, y, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * cols + tl.arange(0, BLOCK)
    mask = tl.arange(0, BLOCK) < cols
    v = tl.load(x + offs, mask=mask, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(y + offs, e / tl.sum(e, axis=0), mask=mask)


def solve(input, output, rows, cols):
    softmax_kernel[(rows,)](input, output, cols, triton.next_power_of_2(cols))
'''
REPETITIONS = 5 if CUDA else 2


@pytest.fixture
def kata(tmp_path: Path):
    def run(*args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "COLUMNS": "200"}
        return subprocess.run([str(KATA), "--problems", str(SET), *args], capture_output=True, text=True,
                              cwd=tmp_path, env=env, timeout=240, check=False)
    return run


def test_a_clone_loads_every_challenge_under_its_own_prefixed_slug(kata):
    listed = {p["slug"]: p for p in json.loads(kata("list", "--json").stdout) if p["kind"] == "leetgpu"}
    assert sorted(listed) == ["leetgpu-1-vector-scale", "leetgpu-2-hash-words", "leetgpu-3-row-softmax",
                              "leetgpu-4-long-sum"]
    assert (listed["leetgpu-1-vector-scale"]["difficulty"], listed["leetgpu-3-row-softmax"]["difficulty"]) == (
        "Easy", "Medium")
    shown = kata("show", "leetgpu-1-vector-scale").stdout
    assert "Multiply every element of X by alpha" in shown and "Output: Y = [2.0, 4.0, 6.0]" in shown
    assert "is left out" in " ".join(shown.split())  # the CPU rule, said for every challenge


def test_a_triton_solution_is_graded_on_the_example_and_functional_tests(kata, tmp_path):
    solution = tmp_path / "scale.py"
    solution.write_text(TRITON_SCALE)
    report = json.loads(kata("run", str(solution), "--json").stdout)
    assert report["verdict"] == "accepted", report
    assert [c["name"] for c in report["cases"]][:2] == ["example 1 (N=3, alpha=2.0)", "functional 1 (N=1, alpha=0.5)"]
    assert len(report["cases"]) == 6  # its described tensors (RandTensor, OutTensor) made too, and the fresh case
    wrong = tmp_path / "wrong.py"
    wrong.write_text(TRITON_SCALE.replace("* alpha", "* alpha + (offs == 0)"))
    failed = json.loads(kata("run", str(wrong), "--json").stdout)
    assert failed["verdict"] == "wrong_answer"
    assert failed["cases"][0]["message"].startswith("Y after the call[0]: expected 2, got 3")


def test_what_solve_returns_is_not_read_as_leetgpus_runner_does_not(kata, tmp_path):
    """A solve that also returns its output (many community solutions do) is right; the output argument is what
    is graded, so a right value returned beside a wrong one in place is still wrong."""
    returns = tmp_path / "returns.py"
    returns.write_text(TRITON_SCALE + "    return Y\n")
    assert json.loads(kata("run", str(returns), "--json").stdout)["verdict"] == "accepted"
    only_returns = tmp_path / "only_returns.py"
    only_returns.write_text("# kata: leetgpu-1-vector-scale\ndef solve(X, Y, N, alpha):\n    return X * alpha\n")
    report = json.loads(kata("run", str(only_returns), "--json").stdout)
    assert report["verdict"] == "wrong_answer" and report["cases"][0]["message"].startswith("Y after the call")


def test_an_input_changed_in_place_fails_and_unsigned_outputs_are_exact(kata, tmp_path):
    changes = tmp_path / "changes.py"
    changes.write_text("# kata: leetgpu-1-vector-scale\ndef solve(X, Y, N, alpha):\n    X.mul_(alpha)\n"
                       "    Y.copy_(X)\n")
    assert json.loads(kata("run", str(changes), "--json").stdout)["verdict"] == "wrong_answer"
    hashes = tmp_path / "hashes.py"
    hashes.write_text("# kata: leetgpu-2-hash-words\nimport torch\n\n\ndef solve(words, hashes, N):\n"
                      "    mixed = (words.to(torch.int64) * 2654435761) & 0xFFFFFFFF\n"
                      "    hashes.copy_(mixed.to(torch.int32).view(torch.uint32))\n")
    assert json.loads(kata("run", str(hashes), "--json").stdout)["verdict"] == "accepted"
    hashes.write_text(hashes.read_text().replace("& 0xFFFFFFFF", "& 0xFFFFFFFE"))
    report = json.loads(kata("run", str(hashes), "--json").stdout)
    assert report["verdict"] == "wrong_answer" and "uint32" in report["cases"][0]["message"]


def test_an_output_a_test_makes_with_torch_empty_is_not_zeros(kata, tmp_path):
    """A test's `torch.empty` output holds what it would on LeetGPU's GPUs, not the zeros a fresh CPU allocation
    often holds: a solution that adds into an output it never cleared fails the example test, as it does there."""
    adds = tmp_path / "adds.py"
    adds.write_text("# kata: leetgpu-4-long-sum\ndef solve(input, output, N):\n    output.add_(input.sum())\n")
    report = json.loads(kata("run", str(adds), "--json").stdout)
    assert report["verdict"] == "wrong_answer", report
    example = report["cases"][0]
    assert (example["name"], example["status"]) == ("example 1 (N=4)", "failed")
    assert "expected 4, got nan" in example["message"]
    assert all(case["status"] == "passed" for case in report["cases"][1:])  # its functional tests' outputs are zeros
    adds.write_text(adds.read_text().replace("    output.add_", "    output.zero_()\n    output.add_"))
    assert json.loads(kata("run", str(adds), "--json").stdout)["verdict"] == "accepted"


def test_a_reference_that_uses_the_sets_shared_helpers_grades(kata, tmp_path):
    solution = tmp_path / "softmax.py"
    solution.write_text("# kata: leetgpu-3-row-softmax\nimport torch\n\n\ndef solve(input, output, rows, cols):\n"
                        "    output.copy_(torch.softmax(input, dim=-1))\n")
    assert json.loads(kata("run", str(solution), "--json").stdout)["verdict"] == "accepted"


@pytest.mark.skipif(CUDA, reason="without CUDA only: there every test runs")
def test_a_test_over_the_cpu_budget_is_left_out_and_said(kata, tmp_path):
    solution = tmp_path / "sum.py"
    solution.write_text("# kata: leetgpu-4-long-sum\nimport torch\n\n\ndef solve(input, output, N):\n"
                        "    output.copy_(input.sum().reshape(1))\n")
    report = json.loads(kata("run", str(solution), "--json").stdout)
    assert report["verdict"] == "accepted" and len(report["cases"]) == 3  # the fresh case too
    assert "left out without CUDA, each over 4,194,304 elements" in report["cases"][0]["note"]
    assert "functional 2 (N=5000000)" in report["cases"][0]["note"]
    shown = " ".join(kata("show", "leetgpu-4-long-sum").stdout.split())
    assert "On this machine: left out without CUDA, each over 4,194,304 elements" in shown
    assert "functional 2 (N=5000000) (2 graded: example 1 (N=4), functional 1 (N=10))" in shown
    shown = " ".join(kata("show", "leetgpu-1-vector-scale").stdout.split())
    assert "On this machine: every test is graded here (5 graded" in shown


def test_a_cuda_only_solution_is_refused_naming_its_language(kata, tmp_path):
    starter = SET / "challenges" / "easy" / "1_vector_scale" / "starter" / "starter.cu"
    done = kata("run", str(starter), "--problem", "leetgpu-1-vector-scale")
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert "a CUDA C++ solution, which kata does not run" in said and "nvcc and an NVIDIA GPU" in said
    jax = tmp_path / "scale_jax.py"
    jax.write_text("# kata: leetgpu-1-vector-scale\nimport jax.numpy as jnp\n\n\ndef solve(X, Y, N, alpha):\n"
                   "    Y.copy_(jnp.asarray(X) * alpha)\n")
    done = kata("run", str(jax))
    assert done.returncode == 2 and "a JAX solution, which kata does not run" in " ".join(done.stderr.split())
    # A JAX import inside a function (as a challenge's reference_impl_jax has) leaves a PyTorch solution graded.
    jax.write_text("# kata: leetgpu-1-vector-scale\nimport torch\n\n\ndef solve(X, Y, N, alpha):\n"
                   "    torch.mul(X, alpha, out=Y)\n\n\ndef with_jax(X, alpha):\n    import jax.numpy as jnp\n\n"
                   "    return jnp.asarray(X) * alpha\n")
    assert json.loads(kata("run", str(jax), "--json").stdout)["verdict"] == "accepted"


def test_start_copies_the_triton_starter_and_progress_is_the_challenges_own(kata, tmp_path):
    started = kata("start", "leetgpu-1-vector-scale", str(tmp_path))
    written = tmp_path / "leetgpu_1_vector_scale.py"
    assert started.returncode == 0 and written.read_text().startswith("# kata: leetgpu-1-vector-scale\n")
    assert "scale_kernel[(triton.cdiv(N, BLOCK_SIZE),)]" in written.read_text()
    written.write_text(TRITON_SCALE)
    assert kata("run", str(written)).returncode == 0
    progress = {p["slug"]: p["progress"] for p in json.loads(kata("list", "--json").stdout)}
    assert progress["leetgpu-1-vector-scale"]["accepted"] and progress["leetgpu-1-vector-scale"]["total"] == 6
    assert progress["leetgpu-2-hash-words"] is None
    assert re.search(r"^leetgpu-1-vector-scale .* solved$", kata("list").stdout, re.M)


def test_a_broken_challenge_is_named_with_its_line_and_the_rest_load(tmp_path):
    clone = tmp_path / "clone"
    shutil.copytree(SET, clone)
    broken = clone / "challenges" / "easy" / "1_vector_scale" / "challenge.py"
    broken.write_text(broken.read_text().replace("    atol = 1e-05", "    tolerance = 1e-05"))
    done = subprocess.run([str(KATA), "--problems", str(clone), "list", "--json"], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}, timeout=120,
                          check=False)
    assert f"{broken}:8: class Challenge sets no atol as a constant" in done.stderr
    loaded = {p["slug"] for p in json.loads(done.stdout) if p["kind"] == "leetgpu"}
    assert loaded == {"leetgpu-2-hash-words", "leetgpu-3-row-softmax", "leetgpu-4-long-sum"}


def test_a_table_of_the_fixed_tests_answers_fails_the_hidden_fresh_case(kata, tmp_path):
    """The fixed tests are the same at every grading (their random inputs drawn after one seed), so a solution
    can learn their answers from one run's output; the fresh case, drawn anew, is what such a table fails."""
    learner = tmp_path / "learner.py"
    learner.write_text("# kata: leetgpu-1-vector-scale\nimport torch\n\n\ndef solve(X, Y, N, alpha):\n"
                       "    torch.mul(X, alpha, out=Y)\n    print(repr(round(float(X.sum()), 4)), Y.tolist())\n")
    first = json.loads(kata("run", str(learner), "--json").stdout)
    assert first["verdict"] == "accepted" and first["cases"][-1]["name"].startswith("fresh inputs")
    table = dict(line.split(" ", 1) for line in first["output"].splitlines())
    table_solution = tmp_path / "table.py"
    table_solution.write_text(f"# kata: leetgpu-1-vector-scale\nimport torch\n\nTABLE = {table!r}\n\n\n"
                              "def solve(X, Y, N, alpha):\n"
                              "    answer = TABLE.get(repr(round(float(X.sum()), 4)), '[]')\n"
                              "    Y.copy_(torch.tensor(eval(answer) or [0.0] * N))\n")
    report = json.loads(kata("run", str(table_solution), "--json").stdout)
    assert report["verdict"] == "wrong_answer"
    assert [c["status"] for c in report["cases"]] == ["passed"] * 5 + ["failed"]


@pytest.mark.skipif(CUDA, reason="without CUDA only: there the repetitions are timed")
def test_kata_bench_without_cuda_checks_every_repetition_of_the_performance_test(kata, tmp_path):
    solution = tmp_path / "softmax.py"
    solution.write_text(TRITON_SOFTMAX)
    done = kata("bench", str(solution), "--json")
    report = json.loads(done.stdout)
    assert (done.returncode, report["correct"]) == (0, True), done.stderr
    assert report["gate_message"] == "all 4 tests and 2 repetitions pass"
    [repetitions] = report["shapes"]
    assert (repetitions["shape"], repetitions["kind"], repetitions["ms"]) == ([64, 130], "correctness", None)
    assert (report["unit"], report["speedup_vs_reference"]) == ("x reference_impl", None)
    said = " ".join(kata("bench", str(solution)).stdout.split())
    assert "correct: all 4 tests and 2 repetitions pass ((64, 130))" in said
    assert "note: the performance test's time needs a CUDA GPU" in said


def test_the_benchmark_checks_every_repetitions_outputs_and_inputs(kata, tmp_path):
    """The performance test's rows are wider than any graded test's: a solution wrong only there passes `kata run`,
    and the benchmark, which checks each repetition against reference_impl, rejects it; so with an input changed."""
    wrong = tmp_path / "wrong.py"
    wrong.write_text(TRITON_SOFTMAX + "    if cols > 100:\n        output[0, 0] += 1\n")
    assert json.loads(kata("run", str(wrong), "--json").stdout)["verdict"] == "accepted"
    done = kata("bench", str(wrong), "--json")
    report = json.loads(done.stdout)
    assert (done.returncode, report["correct"]) == (1, False)
    assert report["gate_message"].startswith(f"repetition 1 of {REPETITIONS} (the inputs of seed 10000): output after "
                                             f"the call[0, 0]: expected"), report["gate_message"]
    changes = tmp_path / "changes.py"
    changes.write_text(TRITON_SOFTMAX + "    if cols > 100:\n        input[1, 2] = 0.0\n")
    report = json.loads(kata("bench", str(changes), "--json").stdout)
    assert not report["correct"]
    assert "argument 'input' was modified in place, which this problem does not allow: input[1, 2]" \
        in report["gate_message"]


@pytest.mark.skipif(CUDA, reason="without CUDA only: there every performance test runs")
def test_a_performance_test_over_the_cpu_budget_is_refused_saying_why_and_what_runs_here(kata, tmp_path):
    solution = tmp_path / "scale.py"
    solution.write_text(TRITON_SCALE)
    done = kata("bench", str(solution))
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, done.stdout
    assert "1_vector_scale/challenge.py: its performance test holds 20,000,000 elements, over the 4,194,304" in said
    assert "kata bench times it on a machine with CUDA. Here `kata run` grades its example and functional tests" in said


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_kata_bench_on_cuda_times_the_performance_test_against_reference_impl(kata, tmp_path):
    solution = tmp_path / "scale.py"
    solution.write_text(TRITON_SCALE)
    done = kata("bench", str(solution), "--json")
    report = json.loads(done.stdout)
    assert (done.returncode, report["correct"], report["unit"]) == (0, True, "x reference_impl"), report
    [repetitions] = report["shapes"]
    assert (repetitions["shape"], repetitions["kind"]) == ([10_000_000], "timed")
    assert repetitions["ms"] > 0 and repetitions["median_ms"] >= repetitions["ms"] and repetitions["reference_ms"] > 0
    assert report["speedup_vs_reference"] > 0 and report["device"].endswith("(CUDA)")
    assert any("LeetGPU's runner times the same test" in note for note in report["notes"])
