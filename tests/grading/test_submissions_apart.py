"""Nothing passes between two submissions: a source graded through the API, or a file of a batch, finds nothing
the one before it left, in its kernel cache, its folder, its environment or its memory. Only one author's
successive saves of one file share what their workers compiled (core/sandbox/kernel_cache.py). Real workers,
the real API and the real `kata grade`; the problem is a Triton kata in miniature (tests/fixtures/problems).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import KATA, REPO

from infrakata import Grader

PROBLEMS = REPO / "tests" / "fixtures" / "problems"

KERNEL = """
import torch
import triton
import triton.language as tl


@triton.jit
def _double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2 * tl.load(x_ptr + offs, mask=mask), mask=mask)


def double(x):
    out = torch.empty_like(x)
    _double[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
    return out
"""

# Right, and leaves what it can where a later worker might look: a file in its kernel cache (under a name
# such a cache has), one in its folder, a variable in its environment, a mark in its memory.
LEAVES = """# kata: triton-double
import builtins
import os

os.makedirs(os.path.join(os.environ["TRITON_CACHE_DIR"], "leftbehind0"), exist_ok=True)
with open(os.path.join(os.environ["TRITON_CACHE_DIR"], "leftbehind0", "kernel.json"), "w") as file:
    file.write("from the first submission")
with open(os.path.join(os.environ["TMPDIR"], "left-behind.txt"), "w") as file:
    file.write("from the first submission")
os.environ["KATA_LEFT_BEHIND"] = "1"
builtins.kata_left_behind = True
""" + KERNEL

# Right unless it finds any of that: then it fails, saying what it found.
LOOKS = """# kata: triton-double
import builtins
import os

FOUND = [where for where, found in (
    ("kernel cache", os.path.exists(os.path.join(os.environ["TRITON_CACHE_DIR"], "leftbehind0"))),
    ("folder", os.path.exists(os.path.join(os.environ["TMPDIR"], "left-behind.txt"))),
    ("environment", "KATA_LEFT_BEHIND" in os.environ),
    ("memory", hasattr(builtins, "kata_left_behind")),
) if found]
""" + KERNEL.replace("def double(x):\n", "def double(x):\n    if FOUND:\n"
                                           "        raise RuntimeError(f'found the first submission in its {FOUND}')\n")


def test_two_sources_in_one_grade_many_are_apart() -> None:
    with Grader(problems=PROBLEMS, jobs=1) as grader:
        first, second = grader.grade_many([LEAVES, LOOKS], problem="triton-double")
    assert first.verdict == "accepted", first.to_json()
    assert second.verdict == "accepted", [case.message for case in second.cases]


def test_two_files_in_one_kata_grade_are_apart(tmp_path: Path) -> None:
    folder = tmp_path / "submissions"
    folder.mkdir()
    (folder / "a_leaves.py").write_text(LEAVES, encoding="utf-8")
    (folder / "b_looks.py").write_text(LOOKS, encoding="utf-8")
    done = subprocess.run([str(KATA), "--problems", str(PROBLEMS), "grade", str(folder), "--jobs", "1"],
                          capture_output=True, text=True, timeout=240, check=False)
    rows = {Path(row["file"]).name: row
            for row in (json.loads(line) for line in done.stdout.splitlines() if line.startswith("{"))}
    assert rows["a_leaves.py"]["verdict"] == "accepted", done.stdout + done.stderr
    assert rows["b_looks.py"]["verdict"] == "accepted", rows["b_looks.py"]["cases"]


def test_one_files_successive_gradings_keep_its_kernels(pool, tmp_path: Path) -> None:
    """What crosses: a file's own kernels, to the next grading of the same file (and nothing else of it)."""
    from infrakata.core.catalog.loading import load_problem
    from infrakata.core.grading.runner import Runner

    problem = load_problem(PROBLEMS / "triton-double")
    runner = Runner(pool)
    path = tmp_path / "double.py"
    assert runner.run(problem, LEAVES, path).verdict == "accepted"
    again = runner.run(problem, LOOKS, path)
    pool.wait_ready()
    if all(layer.active for layer in pool.isolation_layers):  # confined: its cache is its own, and kept
        assert again.verdict == "runtime_error"
        assert "found the first submission in its ['kernel cache']" in again.cases[0].message
