"""Problem kinds, the catalogue's side: one module per kind (native, codestar, kernelbench, leetgpu) with the
fields only its problems have (its source type), how its problems are found and loaded, and what files they have;
and KINDS, the one table of them. Each kind's grading is core/grading/kinds/<kind>.py (its case driver), found by
the kind's name; nothing outside the kinds' modules compares a kind (tests/test_static_matching_config.py).
"""

from __future__ import annotations

from typing import Any

from infrakata.core.catalog.kinds.base import ProblemKind
from infrakata.core.catalog.kinds.codestar import Codestar
from infrakata.core.catalog.kinds.kernelbench import KernelBench
from infrakata.core.catalog.kinds.leetgpu import LeetGpu
from infrakata.core.catalog.kinds.native import Native
from infrakata.core.catalog.problem import Problem

KINDS: dict[str, ProblemKind] = {kind.name: kind for kind in (Native(), Codestar(), KernelBench(), LeetGpu())}


def kind_of(problem: Problem) -> ProblemKind:
    return KINDS[problem.kind]


def benchmarked(problem: Problem) -> bool:
    """Whether `kata bench` applies: a kata's [benchmark] table, a KernelBench problem's Model as the baseline."""
    return kind_of(problem).benchmark(problem) is not None


def no_benchmark(problem: Problem) -> str | None:
    """Why `kata bench` (and the benchmark lens) does not apply to the problem, naming what to do; None where it
    does."""
    if benchmarked(problem):
        return None
    return f"{problem.slug} has no benchmark: {kind_of(problem).without_benchmark(problem)}"


def summary(problem: Problem) -> dict[str, Any]:
    """What `kata list --json` and the server's kata.listProblems say of a problem."""
    return {"slug": problem.slug, "title": problem.title, "difficulty": problem.difficulty,
            "category": problem.category, "tags": list(problem.tags), "entry_point": problem.entry_point,
            "hasBenchmark": benchmarked(problem), "kind": problem.kind, "device": problem.grading.device,
            "path": str(problem.source_path)}
