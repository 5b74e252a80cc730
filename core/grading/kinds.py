"""Problem kinds, the grading side: how each kind's cases are run (core/catalog/kinds.py is the
catalogue's side: how its problems are found and what files they have).

native    graded case by case against reference outputs computed once per problem version
          (core/grading/runner.py).
codestar  the codestar judge's test_code drives the solution (core/grading/codestar.py).
kernelbench  the solution's ModelNew against the problem's Model on seeded trials (core/grading/kernelbench.py).
leetgpu   a LeetGPU challenge's tests, graded as native cases (core/grading/leetgpu.py makes them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from infrakata.core.catalog.kinds import NativeSource, kind_of
from infrakata.core.catalog.problem import FRESH_CASE_NAME, Case, Problem
from infrakata.core.grading import codestar, kernelbench, leetgpu
from infrakata.core.grading.calls import device_for
from infrakata.core.grading.results import GradingError

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

    def reference(self, runner: Runner, problem: Problem) -> Callable[..., Any]:
        """The reference's entry point, run in this (trusted) process: what a case's outputs are checked against."""

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        """The cases a run would have, listed as not run when the static checks fail."""

    def weaknesses(self, runner: Runner, problem: Problem) -> list[str]:
        """What makes the problem weak, though it is sound (`kata check-problems` warns): each names the file
        and the fix."""

    def machine_note(self, runner: Runner, problem: Problem) -> str:
        """What grading here leaves out of the problem's own tests, and why (`kata show` says it under the
        statement); "" where nothing is."""

    def fresh_inputs(self, runner: Runner, problem: Problem, seed: int) -> Case | None:
        """The hidden fresh case's inputs, drawn after `seed` (Runner.fresh_case adds the reference's outputs);
        None where the kind draws none, or draws its own."""


class NativeCases:
    """The runner runs them one by one."""

    def run(self, runner: Runner, problem: Problem, source: str, filename: str, cancel: CancelToken | None,
            entry_line: int | None, values: bool = False, stop_early: bool = False,
            trusted: bool = False, fresh_seed: int | None = None) -> tuple[list[CaseResult], str]:
        return runner.run_cases(problem, source, filename, cancel, entry_line, values, stop_early, trusted,
                                fresh_seed)

    def case_inputs(self, runner: Runner, problem: Problem) -> list[Case]:
        inline = problem.source.inline_cases if isinstance(problem.source, NativeSource) else ()
        if inline:
            return list(inline)
        try:
            generated = problem.module("cases").cases()
            return [Case(c.get("name", f"case {i}"), tuple(c["args"]), dict(c.get("kwargs", {})),
                         bool(c.get("hidden", False))) for i, c in enumerate(generated, 1)]
        except Exception as error:
            raise GradingError(f"{problem.folder / 'cases.py'}: cases() failed: {type(error).__name__}: {error}") \
                from error

    def reference(self, runner: Runner, problem: Problem) -> Callable[..., Any]:
        entry: Callable[..., Any] | None = getattr(problem.module("reference"), problem.entry_point, None)
        if not callable(entry):
            raise GradingError(f"{problem.folder / 'reference.py'}: defines no function '{problem.entry_point}'")
        return entry

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        fresh = [FRESH_CASE_NAME] if kind_of(problem).has_fresh_cases(problem) else []
        return [case.name for case in runner.prepare(problem)] + fresh

    def weaknesses(self, runner: Runner, problem: Problem) -> list[str]:
        return []  # its wrong/ solutions and mutants say what its cases must refuse

    def machine_note(self, runner: Runner, problem: Problem) -> str:
        return ""

    def fresh_inputs(self, runner: Runner, problem: Problem, seed: int) -> Case | None:
        try:
            made = problem.module("cases").fresh(seed)
            return Case(FRESH_CASE_NAME, tuple(made["args"]), dict(made.get("kwargs", {})), hidden=True)
        except Exception as error:
            raise GradingError(f"{problem.folder / 'cases.py'}: fresh() failed: {type(error).__name__}: "
                               f"{error}") from error


class CodestarCases:
    """test_code runs them, calling the solution through its proxy."""

    def run(self, runner: Runner, problem: Problem, source: str, filename: str, cancel: CancelToken | None,
            entry_line: int | None, values: bool = False, stop_early: bool = False,
            trusted: bool = False, fresh_seed: int | None = None) -> tuple[list[CaseResult], str]:
        return codestar.run(problem, source, filename, runner.pool, cancel, entry_line, values, trusted)

    def case_inputs(self, runner: Runner, problem: Problem) -> list[Case]:
        return []

    def reference(self, runner: Runner, problem: Problem) -> Callable[..., Any]:
        raise GradingError(f"{problem.slug}: a codestar problem's reference runs inside its test_code")

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        return []  # test_code says its cases only as it runs them

    def weaknesses(self, runner: Runner, problem: Problem) -> list[str]:
        return []

    def machine_note(self, runner: Runner, problem: Problem) -> str:
        return ""

    def fresh_inputs(self, runner: Runner, problem: Problem, seed: int) -> Case | None:
        return None  # test_code makes every input


class KernelBenchCases:
    """Seeded trials, one by one: ModelNew built and called in a trusted harness in its worker."""

    def run(self, runner: Runner, problem: Problem, source: str, filename: str, cancel: CancelToken | None,
            entry_line: int | None, values: bool = False, stop_early: bool = False,
            trusted: bool = False, fresh_seed: int | None = None) -> tuple[list[CaseResult], str]:
        return kernelbench.run(runner, problem, source, filename, cancel, entry_line, values, stop_early, trusted,
                               fresh_seed)

    def case_inputs(self, runner: Runner, problem: Problem) -> list[Case]:
        return []  # get_inputs() makes them from each trial's seed

    def reference(self, runner: Runner, problem: Problem) -> Callable[..., Any]:
        raise GradingError(f"{problem.slug}: a KernelBench problem's reference is its Model, run in a worker")

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        return kernelbench.case_names()

    def weaknesses(self, runner: Runner, problem: Problem) -> list[str]:
        return kernelbench.weaknesses(runner, problem)

    def machine_note(self, runner: Runner, problem: Problem) -> str:
        return ""  # its sizes on the CPU follow one rule for every file (problems/FORMAT.md)

    def fresh_inputs(self, runner: Runner, problem: Problem, seed: int) -> Case | None:
        return None  # its hidden trial is drawn with the others (kernelbench.fresh_trial)


class LeetGpuCases:
    """A LeetGPU challenge's example and functional tests, graded as a native problem's cases (core/grading/leetgpu.py
    makes them and its reference): outputs in place, every other argument unchanged."""

    def run(self, runner: Runner, problem: Problem, source: str, filename: str, cancel: CancelToken | None,
            entry_line: int | None, values: bool = False, stop_early: bool = False,
            trusted: bool = False, fresh_seed: int | None = None) -> tuple[list[CaseResult], str]:
        results, output = runner.run_cases(problem, source, filename, cancel, entry_line, values, stop_early, trusted,
                                           fresh_seed)
        note = leetgpu.left_out_note(problem)
        if note and results:  # said with the first case: what this run did not grade
            results[0].note = "\n".join(part for part in (results[0].note, note) if part)
        return results, output

    def case_inputs(self, runner: Runner, problem: Problem) -> list[Case]:
        return leetgpu.cases(problem, on_cpu=device_for(problem, runner.pool) == "cpu")

    def reference(self, runner: Runner, problem: Problem) -> Callable[..., Any]:
        return leetgpu.reference(problem)

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        return [case.name for case in runner.prepare(problem)]

    def weaknesses(self, runner: Runner, problem: Problem) -> list[str]:
        return []

    def machine_note(self, runner: Runner, problem: Problem) -> str:
        graded = self.case_inputs(runner, problem)
        return (leetgpu.left_out_note(problem) or "every test is graded here") + \
            f" ({len(graded)} graded: {', '.join(case.name for case in graded)})"

    def fresh_inputs(self, runner: Runner, problem: Problem, seed: int) -> Case | None:
        return leetgpu.fresh(problem, seed)


DRIVERS: dict[str, CaseDriver] = {"native": NativeCases(), "codestar": CodestarCases(),
                                  "kernelbench": KernelBenchCases(), "leetgpu": LeetGpuCases()}


def cases_of(problem: Problem) -> CaseDriver:
    return DRIVERS[problem.kind]
