"""Problem kinds, the grading side: how each kind's cases are run (core/catalog/kinds.py is the
catalogue's side: how its problems are found and what files they have).

native    graded case by case against reference outputs computed once per problem version
          (core/grading/runner.py).
codestar  the codestar judge's test_code drives the solution (core/grading/codestar.py).
kernelbench  the solution's ModelNew against the problem's Model on seeded trials (core/grading/kernelbench.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.problem import FRESH_CASE_NAME, Case, Problem
from infrakata.core.grading import codestar, kernelbench

if TYPE_CHECKING:
    from infrakata.core.grading.results import CaseResult
    from infrakata.core.grading.runner import Runner
    from infrakata.core.sandbox.pool import CancelToken


class CaseDriver(Protocol):
    def run(self, runner: Runner, problem: Problem, source: str, filename: str, cancel: CancelToken | None,
            entry_line: int | None, values: bool = False, stop_early: bool = False,
            trusted: bool = False, fresh_seed: int | None = None) -> tuple[list[CaseResult], str]:
        """Grade a solution that passed the static checks: its cases, and what it printed. `values`:
        record those of the first failing case (core/values.py). `stop_early`: the first failing case
        may end the run (where the kind runs its cases one by one). `trusted`: graded as the reference
        is, held to none of the kata's rules (core/grading/calls.py solution_spec). `fresh_seed`: the seed of
        the fresh case (default: a random one)."""

    def case_inputs(self, runner: Runner, problem: Problem) -> list[Case]:
        """Each case's inputs where the grader makes them, else [] (test_code makes its own)."""

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        """The cases a run would have, listed as not run when the static checks fail."""

    def weaknesses(self, runner: Runner, problem: Problem) -> list[str]:
        """What makes the problem weak, though it is sound (`kata check-problems` warns): each names the file
        and the fix."""


class NativeCases:
    """The runner runs them one by one."""

    def run(self, runner: Runner, problem: Problem, source: str, filename: str, cancel: CancelToken | None,
            entry_line: int | None, values: bool = False, stop_early: bool = False,
            trusted: bool = False, fresh_seed: int | None = None) -> tuple[list[CaseResult], str]:
        return runner.run_cases(problem, source, filename, cancel, entry_line, values, stop_early, trusted,
                                fresh_seed)

    def case_inputs(self, runner: Runner, problem: Problem) -> list[Case]:
        return runner.case_inputs(problem)

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        fresh = [FRESH_CASE_NAME] if kind_of(problem).has_fresh_cases(problem) else []
        return [case.name for case in runner.prepare(problem)] + fresh

    def weaknesses(self, runner: Runner, problem: Problem) -> list[str]:
        return []  # its wrong/ solutions and mutants say what its cases must refuse


class CodestarCases:
    """test_code runs them, calling the solution through its proxy."""

    def run(self, runner: Runner, problem: Problem, source: str, filename: str, cancel: CancelToken | None,
            entry_line: int | None, values: bool = False, stop_early: bool = False,
            trusted: bool = False, fresh_seed: int | None = None) -> tuple[list[CaseResult], str]:
        return codestar.run(problem, source, filename, runner.pool, cancel, entry_line, values, trusted)

    def case_inputs(self, runner: Runner, problem: Problem) -> list[Case]:
        return []

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        return []  # test_code says its cases only as it runs them

    def weaknesses(self, runner: Runner, problem: Problem) -> list[str]:
        return []


class KernelBenchCases:
    """Seeded trials, one by one: ModelNew built and called in a trusted harness in its worker."""

    def run(self, runner: Runner, problem: Problem, source: str, filename: str, cancel: CancelToken | None,
            entry_line: int | None, values: bool = False, stop_early: bool = False,
            trusted: bool = False, fresh_seed: int | None = None) -> tuple[list[CaseResult], str]:
        return kernelbench.run(runner, problem, source, filename, cancel, entry_line, values, stop_early, trusted,
                               fresh_seed)

    def case_inputs(self, runner: Runner, problem: Problem) -> list[Case]:
        return []  # get_inputs() makes them from each trial's seed

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        return kernelbench.case_names()

    def weaknesses(self, runner: Runner, problem: Problem) -> list[str]:
        return kernelbench.weaknesses(runner, problem)


DRIVERS: dict[str, CaseDriver] = {"native": NativeCases(), "codestar": CodestarCases(),
                                  "kernelbench": KernelBenchCases()}


def cases_of(problem: Problem) -> CaseDriver:
    return DRIVERS[problem.kind]
