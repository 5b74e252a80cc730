"""Every problem of the catalogue: its reference is accepted, a solution within the kata's rules is
accepted (the model solution where the reference breaks them), its starter is not, and each wrong/
solution gets exactly the verdict its header states. Regression tests for the grader itself."""

from __future__ import annotations

import pytest
from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.kinds.native import expected_verdict
from infrakata.core.catalog.loading import Catalog
from infrakata.core.grading.results import VERDICTS

CATALOG = Catalog.load()
PROBLEMS = sorted(CATALOG.problems.values(), key=lambda p: p.slug)
WRONG = [(p, path) for p in PROBLEMS for path in kind_of(p).wrong_solutions(p)]


def test_bundled_catalogue_loads_cleanly():
    assert not CATALOG.errors, "\n".join(map(str, CATALOG.errors))
    assert len(PROBLEMS) >= 12


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.slug)
def test_reference_is_accepted(runner, problem):
    """Trusted code, graded as such: a reference may use what its kata forbids (autograd, torch.optim)."""
    report = runner.run(problem, problem.reference_source, problem.folder / "reference.py", trusted=True)
    assert report.verdict == "accepted", [c.message for c in report.cases if c.status != "passed"]
    assert report.total >= 3


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.slug)
def test_a_solution_within_the_katas_rules_is_accepted(runner, problem):
    """The kata's rules (forbidden calls and their tripwires, autograd off, a Triton launch, the memory
    limit) can be met: by the model solution where the reference breaks them, else by the reference."""
    path = kind_of(problem).model_solution(problem) or problem.folder / "reference.py"
    report = runner.run(problem, path.read_text(encoding="utf-8"), path)
    assert report.verdict == "accepted", [c.message for c in report.cases if c.status != "passed"]


MODEL_SOLUTIONS = {"adamw-step", "layernorm-backward", "flash-attention-forward", "fused-row-softmax",
                   "fused-rmsnorm", "fused-swiglu", "blockwise-absmax-quant", "tiled-matmul",
                   *(f"triton-{name}" for name in ("flash-attention-forward", "fused-cross-entropy",
                                                   "layernorm-backward", "moe-grouped-gemm", "gemm-fused-epilogue",
                                                   "int8-matmul-scaled", "split-k-gemm", "rotary-in-place",
                                                   "paged-attention-decode", "top-p-sampling"))}


def test_the_references_that_break_their_katas_rules_are_the_ones_with_a_model_solution(runner):
    with_model = {p.slug for p in PROBLEMS if kind_of(p).model_solution(p) is not None}
    assert with_model == MODEL_SOLUTIONS
    for slug in sorted(with_model):
        problem = CATALOG.problems[slug]
        report = runner.run(problem, problem.reference_source, problem.folder / "reference.py")
        assert report.verdict in ("forbidden", "memory_limit_exceeded"), (slug, report.verdict)


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.slug)
def test_starter_is_not_accepted(runner, problem):
    assert problem.starter, f"{problem.slug} has no starter.py"
    report = runner.run(problem, problem.starter, problem.folder / "starter.py")
    assert report.verdict != "accepted"


@pytest.mark.parametrize("problem,path", WRONG, ids=lambda x: getattr(x, "slug", None) or x.name)
def test_wrong_solution_gets_its_stated_verdict(runner, problem, path):
    expected = expected_verdict(path)
    assert expected in VERDICTS and expected != "accepted", f"{path}: header '# expect: <verdict>' missing"
    report = runner.run(problem, path.read_text(encoding="utf-8"), path)
    failing = [f"{c.id} {c.status}: {c.message}" for c in report.cases if c.status != "passed"]
    assert report.verdict == expected, failing or [f.message for f in report.findings]
