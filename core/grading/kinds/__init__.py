"""Problem kinds, the grading side: one module per kind, named for it (core/catalog/kinds/ is the catalogue's side:
how its problems are found and loaded), each with its case driver as `DRIVER`.

native       graded case by case against the reference's outputs, computed once per problem version and kept
             by the Runner (core/grading/runner.py prepare).
codestar     the codestar judge's test_code drives the solution, through a proxy.
kernelbench  the solution's ModelNew against the problem's Model on seeded trials (its worker side:
             kernelbench_worker.py).
leetgpu      a LeetGPU challenge's tests, graded as native cases.

A kind's driver is found by the kind's name (`driver_of`), so that adding a kind touches its own modules here and
in core/catalog/kinds/, and the one table there (KINDS).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from infrakata.core.catalog.problem import Case, Problem

if TYPE_CHECKING:
    from infrakata.core.grading.results import CaseResult
    from infrakata.core.grading.runner import Runner
    from infrakata.core.sandbox.pool import CancelToken


@dataclass(frozen=True)
class Solution:
    """The source graded, as a run has it after the static checks."""

    source: str
    filename: str  # resolved: what the solution's tracebacks and recordings name
    entry_line: int | None  # the line of its entry point, where a failure with no line of its own is shown


@dataclass(frozen=True)
class RunOptions:
    """How a run grades (Runner.run's options).

    values: record those of the first failing case (core/values.py).
    stop_early: the first failing case may end the run (where the kind runs its cases one by one).
    trusted: graded as the reference is, held to none of the kata's rules (core/grading/calls.py solution_spec).
    fresh_seed: the seed of the fresh case (default: a random one).
    """

    cancel: CancelToken | None = None
    values: bool = False
    stop_early: bool = False
    trusted: bool = False
    fresh_seed: int | None = None


class CaseDriver(Protocol):
    """How a kind's cases run (each kind's module subclasses it as its `DRIVER`); what is written here is what a
    kind has unless it says otherwise: no inputs made by the grader, no weaknesses, nothing left out, no fresh
    case of the grader's drawing."""

    def run(self, runner: Runner, problem: Problem, solution: Solution,
            options: RunOptions) -> tuple[list[CaseResult], str]:
        """Grade a solution that passed the static checks: its cases, and what it printed."""

    def case_inputs(self, runner: Runner, problem: Problem) -> list[Case]:
        """Each case's inputs where the grader makes them, else [] (test_code makes its own)."""
        return []

    def reference(self, runner: Runner, problem: Problem) -> Callable[..., Any]:
        """The reference's entry point, run in this (trusted) process: what a case's outputs are checked against."""

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        """The cases a run would have, listed as not run when the static checks fail."""

    def weaknesses(self, runner: Runner, problem: Problem) -> list[str]:
        """What makes the problem weak, though it is sound (`kata check-problems` warns): each names the file
        and the fix."""
        return []

    def machine_note(self, runner: Runner, problem: Problem) -> str:
        """What grading here leaves out of the problem's own tests, and why (`kata show` says it under the
        statement); "" where nothing is."""
        return ""

    def fresh_inputs(self, runner: Runner, problem: Problem, seed: int) -> Case | None:
        """The hidden fresh case's inputs, drawn after `seed` (Runner.fresh_case adds the reference's outputs);
        None where the kind draws none, or draws its own."""
        return None


@functools.cache
def _driver(kind: str) -> CaseDriver:
    return cast("CaseDriver", importlib.import_module(f"{__name__}.{kind}").DRIVER)


def driver_of(problem: Problem) -> CaseDriver:
    """The case driver of the problem's kind: `DRIVER` in this package's module named for it."""
    return _driver(problem.kind)
