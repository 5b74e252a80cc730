"""Problem kinds, the catalogue's side: one module per kind (native, codestar, kernelbench, leetgpu) with the
fields only its problems have (its source type), how its problems are found and loaded, and what files they have;
and KINDS, the one table of them. Each kind's grading is core/grading/kinds/<kind>.py (its case driver), found by
the kind's name; nothing outside the kinds' modules compares a kind (tests/test_static_matching_config.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from infrakata.core.catalog.kinds.codestar import Codestar
from infrakata.core.catalog.kinds.kernelbench import KernelBench
from infrakata.core.catalog.kinds.leetgpu import LeetGpu
from infrakata.core.catalog.kinds.native import Native
from infrakata.core.catalog.problem import Problem, Timing


class ProblemKind(Protocol):
    name: str
    looks_like: str  # for "not a problem" messages
    vocabulary_tags: bool  # whether its tags must come from the catalogue's vocabulary (problems/tags.toml)
    # Whether a problem whose slug an earlier one has is loaded as itself under `<kind>-<slug>` (a format loaded
    # unchanged, which a user does not edit), rather than refused.
    renamed_when_taken: bool

    def defines(self, path: Path) -> bool:
        """Whether `path` is one problem of this kind."""

    def load(self, path: Path) -> Problem:
        """The problem `path` defines (ProblemError naming the file, the field and its line where it cannot)."""

    def problems_in(self, folder: Path) -> list[Path]:
        """The problems of this kind directly in a folder."""

    def trusted_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        """(module name, file name, source) of problem code a worker loads before the solution (code that
        makes the inputs there); sent as source, since a worker may not read the problem's folder."""

    def importable_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        """The same, for problem code a worker loads at its first import (to unpickle inputs of its classes)."""

    def problem_code(self, problem: Problem) -> tuple[str, ...]:
        """The sources of the problem's own code, besides its trusted modules, that makes what reaches a
        solution (the calls that drive it) and the expected outputs: with the trusted modules, what decides
        whether a worker needs torch (calls.solution_spec)."""

    def reference_filename(self, problem: Problem) -> str:
        ...

    def reference_as_solution(self, problem: Problem) -> str:
        """The reference, written as a learner's solution would be (`kata check-problems` grades it so)."""

    def wrong_solutions(self, problem: Problem) -> list[Path]:
        """Solutions the grader must reject with the verdict their header states."""

    def simulation(self, problem: Problem) -> Path | None:
        """A second, independent reference (the system simulated step by step) that must agree with the
        first on every case, or None."""

    def model_solution(self, problem: Problem) -> Path | None:
        """A solution within the kata's rules, graded as a learner's, where the reference itself breaks
        them (it calls what the kata forbids, or exceeds its memory cap); None: the reference is one."""

    def missing_statement(self, problem: Problem) -> str | None:
        """What is missing from the problem's statements (English and Chinese), or None."""

    def generates_cases(self, problem: Problem) -> bool:
        """Whether trusted code makes the cases' inputs (then `kata check-problems` checks they repeat)."""

    def has_fresh_cases(self, problem: Problem) -> bool:
        """Whether the problem makes a fresh hidden case at every grading (cases.py `fresh(seed)`)."""

    def benchmark(self, problem: Problem) -> Timing | None:
        """How `kata bench` times the problem (core/bench/__init__.py), or None where it does not."""

    def without_benchmark(self, problem: Problem) -> str:
        """Why `kata bench` does not apply to a problem of this kind that has no benchmark, and what to do."""


KINDS: dict[str, ProblemKind] = {kind.name: kind for kind in (Native(), Codestar(), KernelBench(), LeetGpu())}


def kind_of(problem: Problem) -> ProblemKind:
    return KINDS[problem.kind]


def benchmarked(problem: Problem) -> bool:
    """Whether `kata bench` applies: a kata's [benchmark] table, a KernelBench problem's Model as the baseline."""
    return kind_of(problem).benchmark(problem) is not None


def summary(problem: Problem) -> dict[str, Any]:
    """What `kata list --json` and the server's kata.listProblems say of a problem."""
    return {"slug": problem.slug, "title": problem.title, "difficulty": problem.difficulty,
            "category": problem.category, "tags": list(problem.tags), "entry_point": problem.entry_point,
            "hasBenchmark": benchmarked(problem), "kind": problem.kind, "device": problem.grading.device,
            "path": str(problem.source_path)}
