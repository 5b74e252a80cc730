"""What every problem kind answers (core/catalog/kinds/<kind>.py each subclass it), with what a kind has unless it
says otherwise: no problem code loaded into a worker, no wrong solutions, simulation or model solution, and no
benchmark."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

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
        return ()

    def importable_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        """The same, for problem code a worker loads at its first import (to unpickle inputs of its classes)."""
        return ()

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
        return []

    def simulation(self, problem: Problem) -> Path | None:
        """A second, independent reference (the system simulated step by step) that must agree with the
        first on every case, or None."""
        return None

    def model_solution(self, problem: Problem) -> Path | None:
        """A solution within the kata's rules, graded as a learner's, where the reference itself breaks
        them (it calls what the kata forbids, or exceeds its memory cap); None: the reference is one."""
        return None

    def missing_statement(self, problem: Problem) -> str | None:
        """What is missing from the problem's statements (English and Chinese), or None."""

    def generates_cases(self, problem: Problem) -> bool:
        """Whether trusted code makes the cases' inputs (then `kata check-problems` checks they repeat)."""

    def has_fresh_cases(self, problem: Problem) -> bool:
        """Whether the problem makes a fresh hidden case at every grading (cases.py `fresh(seed)`)."""

    def benchmark(self, problem: Problem) -> Timing | None:
        """How `kata bench` times the problem (core/bench/__init__.py), or None where it does not."""
        return None

    def without_benchmark(self, problem: Problem) -> str:
        """Why `kata bench` does not apply to a problem of this kind that has no benchmark, and what to do."""
