"""`kata check-problems --mutants`: every mutant of a reference must be rejected by some case.

The operators are pure functions of a source (tested as units); the check runs the real `kata`
binary, which grades each mutant in real workers against a problem written here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from infrakata.core.catalog.loading import Catalog
from infrakata.core.maintenance.mutants.make import make_mutants

KATA = Path(sys.executable).with_name("kata")

REFERENCE = '''import torch


def damped(x, eps=1e-6):
    """x / (|x| + eps), computed in float32."""
    xf = x.float()
    return (xf / (xf.abs() + eps)).to(x.dtype)
'''
TOML = '''slug = "fixture-damped"
title = "x / (|x| + eps)"
entry_point = "damped"
atol = 1e-7
rtol = 1e-4
'''
# Every case passes the default eps explicitly, and eps never matters next to |x| ~ 1.
WEAK_CASES = '''import torch


def cases():
    return [{"name": "ones", "args": (torch.ones(4), 1e-6)},
            {"name": "halves", "args": (torch.full((3,), 0.5), 1e-6)}]
'''
STRONG_CASES = '''import torch


def cases():
    return [{"name": "ones", "args": (torch.ones(4), 1e-6)},
            {"name": "eps 1e-3 beside |x| ~ 1e-3", "args": (torch.full((3,), 1e-3), 1e-3)},
            {"name": "default eps beside fp16 values ~ 1e-6", "args": (torch.full((2,), 2e-6, dtype=torch.float16),)}]
'''


def write_problem(folder: Path, cases: str, toml_extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "problem.toml").write_text(TOML + toml_extra)
    (folder / "reference.py").write_text(REFERENCE)
    (folder / "cases.py").write_text(cases)
    (folder / "starter.py").write_text("def damped(x, eps=1e-6):\n    raise NotImplementedError\n")
    (folder / "README.md").write_text("## English\n\n`x / (|x| + eps)`.\n\n## 中文\n\n`x / (|x| + eps)`。\n")
    return folder


def check(*paths: Path, mutants: bool = True) -> tuple[int, str]:
    env = {**os.environ, "COLUMNS": "200"}
    done = subprocess.run([str(KATA), "check-problems", *map(str, paths), *(["--mutants"] if mutants else [])],
                          capture_output=True, text=True, timeout=240, env=env, check=False)
    return done.returncode, done.stdout + done.stderr


# -- the operators -----------------------------------------------------------------------------

def test_each_operator_makes_its_mutants_with_a_label_naming_the_place():
    source = ("import torch\n\n\ndef f(x, n, eps=1e-6, *, scale=2):\n"
              "    y = x.to(torch.float32).sum(dtype=torch.float64)\n"
              "    z = torch.zeros(3, dtype=torch.float32) + x.double()\n"
              "    return y * scale / (n - 1 + eps) + z[-1] + 1.0 + 1.0\n")
    made = {m.what: m for m in make_mutants(source, "f", ((object(),), {"n": 7}))}
    assert set(made) == {
        "f: parameter eps pinned to its default 1e-6",
        "f: parameter scale pinned to its default 2",
        "f: parameter n pinned to 7 (its value in the first case)",
        "f: constant 1e-6 -> 2e-06",
        "f: constant 2 -> 3",
        "f: upcast removed: x.to(torch.float32) -> x",
        "f: upcast removed: dtype=torch.float64 dropped from sum()",
        "f: upcast removed: x.double() -> x",
        "f: constant 3 -> 4",
        "f: constant 1 -> 2",
        "f: constant -1 -> 0",
        "f: constant 1.0 -> 2.0",
        "f: constant 1.0 -> 2.0 (occurrence 2)",
    }, sorted(made)
    # A factory's float32 is its default: dropping it would change nothing, so it is no mutant.
    assert not any("zeros()" in label for label in made)
    pinned = made["f: parameter eps pinned to its default 1e-6"]
    assert pinned.line == 4 and "eps = 1e-06" in pinned.source
    assert made["f: constant -1 -> 0"].line == 7 and "z[0]" in made["f: constant -1 -> 0"].source


def test_boundaries_move_and_roundings_turn():
    # The values exactly on a boundary (a format's max) and a short last group (a ceiling) are what they test.
    source = ("import math\n\n\ndef h(x, n, b):\n"
              "    hits = (x.abs() > 448).sum() + (x <= 0).sum()\n"
              "    return hits, math.ceil(n / b) + -(-n // b) + x.floor()\n")
    made = {m.what: m for m in make_mutants(source, "h")}
    assert {label for label in made if "constant" not in label} == {
        "h: boundary moved: > -> >=",
        "h: boundary moved: <= -> <",
        "h: rounding turned: ceil -> floor",
        "h: rounding turned: -(-a // b) -> a // b",
        "h: rounding turned: floor -> ceil",
    }, sorted(made)
    assert "x.abs() >= 448" in made["h: boundary moved: > -> >="].source
    assert "math.floor(n / b)" in made["h: rounding turned: ceil -> floor"].source
    assert "+ n // b +" in made["h: rounding turned: -(-a // b) -> a // b"].source
    assert made["h: boundary moved: <= -> <"].line == 5


def test_changes_that_give_the_same_module_are_one_mutant():
    # Pinning `v` to its default and to the first case's value (the same 1) is one mutant.
    labels = [m.what for m in make_mutants("def g(v=1):\n    return v\n", "g", ((1,), {}))]
    assert labels == ["g: parameter v pinned to its default 1", "g: constant 1 -> 2"]


# -- the check, through the real binary and real workers ----------------------------------------

def test_survivors_are_reported_with_their_place_and_new_cases_kill_them(tmp_path):
    folder = write_problem(tmp_path / "fixture-damped", WEAK_CASES)
    plain, out = check(folder, mutants=False)
    assert plain == 0 and "mutants" not in out
    code, out = check(folder)
    assert code == 1, out
    reference = re.escape(str(folder / "reference.py"))
    assert re.search(rf"mutant survives every case: {reference}:4: damped: parameter eps pinned to its default 1e-6",
                     out), out
    assert re.search(rf"mutant survives every case: {reference}:4: damped: constant 1e-6 -> 2e-06", out), out
    assert "a [[mutants.equivalent]] entry in problem.toml" in out

    (folder / "cases.py").write_text(STRONG_CASES)
    code, out = check(folder)
    assert code == 0, out
    made = re.search(r"mutants: (\d+) made, (\d+) killed, 0 declared equivalent", out)
    assert made and made.group(1) == made.group(2), out


def test_an_equivalent_mutant_is_declared_with_its_reason_and_declarations_stay_true(tmp_path):
    declared = ('\n[[mutants.equivalent]]\nmutant = "damped: upcast removed: xf.abs() -> xf"\n'
                'reason = "no such mutant"\n'
                '\n[[mutants.equivalent]]\nmutant = "damped: constant 1e-6 -> 2e-06"\n'
                'reason = "claimed, but the default-eps case tells it apart"\n')
    folder = write_problem(tmp_path / "fixture-damped", STRONG_CASES, declared)
    code, out = check(folder)
    assert code == 1, out
    toml = re.escape(str(folder / "problem.toml"))
    assert re.search(rf"{toml}:8: \[\[mutants.equivalent\]\] names no mutant of the reference: "
                     r"'damped: upcast removed: xf.abs\(\) -> xf'", out), out
    assert re.search(rf"{toml}:12: mutant 'damped: constant 1e-6 -> 2e-06' is declared equivalent, but case 3 "
                     r"\(default eps beside fp16 values ~ 1e-6\): wrong answer tells it apart: remove the declaration",
                     out), out


def test_a_declaration_needs_a_reason(tmp_path):
    folder = write_problem(tmp_path / "fixture-damped", STRONG_CASES,
                           '\n[[mutants.equivalent]]\nmutant = "damped: constant 1e-6 -> 2e-06"\nreason = " "\n')
    catalog = Catalog.load([folder], include_bundled=False)
    assert not catalog.problems
    assert "field 'mutants.equivalent[1].reason': must be why no input can tell it apart" in str(catalog.errors[0])


def test_stop_early_ends_a_run_at_its_first_failing_case(runner, tmp_path):
    problem = Catalog.load([write_problem(tmp_path / "fixture-damped", STRONG_CASES)], include_bundled=False) \
        .problems["fixture-damped"]
    wrong = "def damped(x, eps=1e-6):\n    return x * 0\n"
    full = runner.run(problem, wrong, tmp_path / "wrong.py")
    early = runner.run(problem, wrong, tmp_path / "wrong.py", stop_early=True)
    assert [c.status for c in full.cases] == ["failed", "failed", "failed"]
    assert [c.status for c in early.cases] == ["failed", "skipped", "skipped"]
    assert early.cases[1].message == "not run: case 1 failed" and early.verdict == full.verdict == "wrong_answer"


@pytest.mark.parametrize("slug", ["rmsnorm", "quantized-adamw-8bit"])
def test_the_catalogue_tells_apart_the_parameters_its_cases_once_left_at_one_value(catalog, runner, slug):
    """The review that found eps ignored in rmsnorm and every hyperparameter (and step 137) in
    quantized-adamw-8bit: those mutants are killed now."""
    from infrakata.core.maintenance.mutants.check import check_mutants

    report = check_mutants(catalog.problems[slug], runner)
    pins = [o for o in report.outcomes if "pinned" in o.mutant.change]
    assert pins and all(o.killed_by for o in pins), [(o.mutant.what, o.killed_by) for o in pins]
    assert report.survivors == 0
