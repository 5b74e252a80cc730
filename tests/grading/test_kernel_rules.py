"""Kernel katas' rules, measured by the Triton interpreter in a real worker (core/sandbox/kernel_meter.py): one test
per class of shortcut a review found accepted when the rules were guessed from names. Every output element written
by a kernel and left as it wrote it; a buffer a kernel reads is an input, a kernel's output or a constant fill;
launches counted where a grid runs; a graded argument kept in its storage; a largest tile; the memory traffic of a
fused kernel; a load past the end named with its index; an autotuner through the interpreter."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from infrakata.core.catalog.loading import Catalog, load_problem
from infrakata.core.grading.runner import Runner
from test_submissions_apart import KERNEL

FIXTURES = Path(__file__).parents[1] / "fixtures" / "problems"


@pytest.fixture(scope="module")
def double():
    return load_problem(FIXTURES / "triton-double")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def grade(runner: Runner, problem, source: str):
    return runner.run(problem, textwrap.dedent(source), "/tmp/kernel.py")


PRELUDE = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, 2 * tl.load(x_ptr + offs, mask=mask), mask=mask)
'''


def test_an_output_no_kernel_wrote_is_refused(runner, double):
    """torch computes the answer; a kernel runs beside it to be counted."""
    report = grade(runner, double, PRELUDE + '''
def double(x):
    decoy = torch.empty_like(x)
    _double[(triton.cdiv(x.numel(), 256),)](x, decoy, x.numel(), BLOCK=256)
    return x * 2
''')
    assert report.verdict == "forbidden", [c.message for c in report.cases]
    assert report.cases[0].message.startswith("out[0]: no Triton kernel wrote it during the call")


def test_an_output_changed_after_the_kernel_wrote_it_is_refused(runner, double):
    """The kernel writes, then the host puts the right values in (here an indexing write; ctypes' memmove alike)."""
    report = grade(runner, double, PRELUDE + '''
@triton.jit
def _quadruple(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    _double(x_ptr, out_ptr, n, BLOCK)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 2 * tl.load(out_ptr + offs, mask=offs < n), mask=offs < n)


def double(x):
    out = torch.empty_like(x)
    _quadruple[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
    out[:] = x + x
    return out
''')
    assert report.verdict == "forbidden", [c.message for c in report.cases]
    refused = next(c for c in report.cases if c.status != "passed")  # n = 1 holds 0, which both write alike
    assert refused.message.startswith("out[1]: changed after the kernel wrote it")


def test_a_value_computed_outside_the_kernels_and_handed_in_is_refused(runner, double):
    """A kernel that only copies what torch computed: the copy's input is no input of the call."""
    report = grade(runner, double, PRELUDE + '''
@triton.jit
def _copy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)


def double(x):
    computed = x * 2
    out = torch.empty_like(x)
    _copy[(triton.cdiv(x.numel(), 256),)](computed, out, x.numel(), BLOCK=256)
    return out
''')
    assert report.verdict == "forbidden", [c.message for c in report.cases]
    refused = next(c for c in report.cases if c.status != "passed")  # one element is one constant: n = 1 passes
    assert "a kernel read `src_ptr`" in refused.message and "a value computed outside the kernels" in refused.message


def test_a_load_past_the_end_names_the_tensor_and_the_index_on_its_line(runner, double):
    source = PRELUDE.replace("tl.load(x_ptr + offs, mask=mask)", "tl.load(x_ptr + offs)") + '''
def double(x):
    out = torch.empty_like(x)
    _double[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
    return out
'''
    report = grade(runner, double, source)
    case = report.cases[1]  # n = 100
    assert report.verdict == "runtime_error" and case.status == "error"
    assert case.message.startswith("tl.load reads x_ptr[100] of 100 elements: mask the tail")
    assert case.line == textwrap.dedent(source).splitlines().index(
        "    tl.store(out_ptr + offs, 2 * tl.load(x_ptr + offs), mask=mask)") + 1


def test_launches_are_counted_where_the_grid_runs(runner, double):
    """The grid executor called directly is a launch; a count set by hand in the tripwires' module is not one."""
    direct = grade(runner, double, PRELUDE + '''
from triton.runtime.interpreter import GridExecutor


def double(x):
    out = torch.empty_like(x)
    GridExecutor(_double.fn, _double.arg_names, (triton.cdiv(x.numel(), 256),))(x, out, x.numel(), BLOCK=256)
    return out
''')
    assert direct.verdict == "accepted", [c.message for c in direct.cases]
    forged = grade(runner, double, '''
import sys


def double(x):
    sys.modules["infrakata.core.sandbox.tripwires"]._launches = 1
    return x * 2
''')
    assert forged.verdict == "forbidden" and "no Triton kernel was launched" in forged.cases[0].message


def test_an_autotuner_with_several_configurations_runs_through_the_interpreter(runner, double):
    tuned = '''@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 256})], key=["n"])
@triton.jit'''
    report = grade(runner, double, PRELUDE.replace("@triton.jit", tuned) + '''
def double(x):
    out = torch.empty_like(x)
    _double[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, out, x.numel())
    return out
''')
    assert report.verdict == "accepted", [c.message for c in report.cases]


def test_a_tile_larger_than_the_katas_is_refused_with_the_fix(runner, tmp_path):
    folder = tmp_path / "triton-double"
    shutil.copytree(FIXTURES / "triton-double", folder)
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text().replace("triton_launch = true", "triton_launch = true\nmax_tile = 256"))
    problem = load_problem(folder)
    assert grade(runner, problem, KERNEL).verdict == "accepted"  # blocks of 256
    whole = grade(runner, problem, KERNEL.replace("BLOCK=256", "BLOCK=triton.next_power_of_2(x.numel())")
                  .replace("triton.cdiv(x.numel(), 256)", "1"))
    assert whole.verdict == "forbidden"
    assert "moved 1,024 elements at once, above this kata's tile of 256: stream over the dimension" in \
        whole.cases[2].message


TWO_PASS_SOFTMAX = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _exp(x_ptr, e_ptr, columns, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * columns + offs, mask=offs < columns, other=-float("inf"))
    tl.store(e_ptr + row * columns + offs, tl.exp(x - tl.max(x, axis=0)), mask=offs < columns)


@triton.jit
def _normalize(e_ptr, out_ptr, columns, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    e = tl.load(e_ptr + row * columns + offs, mask=offs < columns, other=0.0)
    tl.store(out_ptr + row * columns + offs, e / tl.sum(e, axis=0), mask=offs < columns)


def softmax_rows(x):
    rows, columns = x.shape
    x = x.contiguous()
    e, out = torch.empty_like(x), torch.empty_like(x)
    block = triton.next_power_of_2(columns)
    _exp[(rows,)](x, e, columns, BLOCK=block)
    _normalize[(rows,)](e, out, columns, BLOCK=block)
    return out
'''


def test_an_intermediate_through_memory_exceeds_a_fused_katas_traffic(runner, catalog):
    report = grade(runner, catalog.problems["fused-row-softmax"], TWO_PASS_SOFTMAX)
    assert report.verdict == "forbidden", [c.message for c in report.cases]
    message = next(c.message for c in report.cases if c.status != "passed")
    assert "times the" in message and "of the call's outputs" in message and "the most through `e_ptr`" in message


def test_a_graded_argument_rebound_to_new_storage_is_refused(runner, tmp_path):
    """A kata that grades its argument in place: a solution that lets a kernel write a new tensor and sets the
    argument to it (`x.set_`) wrote nothing of the memory it was given, though the argument reads right."""
    folder = tmp_path / "triton-double-in-place"
    shutil.copytree(FIXTURES / "triton-double", folder)
    (folder / "problem.toml").write_text((folder / "problem.toml").read_text().replace(
        'slug = "triton-double"', 'slug = "triton-double-in-place"').replace(
        'entry_point = "double"', 'entry_point = "double_"').replace("[grading]", '[grading]\nstate = ["x"]'))
    (folder / "reference.py").write_text("def double_(x):\n    x.mul_(2)\n")
    problem = load_problem(folder)
    in_place = PRELUDE + '''
def double_(x):
    _double[(triton.cdiv(x.numel(), 256),)](x, x, x.numel(), BLOCK=256)
'''
    assert grade(runner, problem, in_place).verdict == "accepted"
    report = grade(runner, problem, PRELUDE + '''
def double_(x):
    out = torch.empty_like(x)
    _double[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
    x.set_(out)
''')
    assert report.verdict == "forbidden", [c.message for c in report.cases]
    assert report.cases[0].message.startswith("`x` left the storage it came with during the call (set_")
