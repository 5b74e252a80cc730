"""Grading a reference's mutants through the real grading path.

Each mutant is graded as a solution is: core/grading/runner.py, real workers, the problem's cases against
the reference outputs the runner prepared once. Its first failing case kills it and ends its run.
A survivor is a failure of the problem's cases, unless the problem declares it equivalent (no input
can tell it apart) with the reason; a declaration that names no mutant, or one some case kills, is
a failure too, so the declarations stay true as the reference changes.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.problem import EquivalentMutant, Problem
from infrakata.core.grading.kinds import driver_of
from infrakata.core.grading.results import RunReport, verdict_words
from infrakata.core.maintenance.mutants.make import Mutant, make_mutants

if TYPE_CHECKING:
    from infrakata.core.grading.runner import Runner


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    killed_by: str  # "case 3 (name): wrong answer", or "" when every case accepted it
    declared: EquivalentMutant | None  # its declaration as equivalent, if any


@dataclass
class MutantReport:
    reference: str  # the reference's file name, for the mutants' places
    toml: str  # where equivalent mutants are declared
    outcomes: list[Outcome] = field(default_factory=list)
    unmatched: list[EquivalentMutant] = field(default_factory=list)  # declarations naming no mutant

    @property
    def made(self) -> int:
        return len(self.outcomes)

    @property
    def killed(self) -> int:
        return sum(bool(o.killed_by) for o in self.outcomes)

    @property
    def equivalent(self) -> int:
        return sum(not o.killed_by and o.declared is not None for o in self.outcomes)

    @property
    def survivors(self) -> int:
        return sum(not o.killed_by and o.declared is None for o in self.outcomes)

    def summary(self) -> str:
        return f"mutants: {self.made} made, {self.killed} killed, {self.equivalent} declared equivalent"

    def failures(self) -> list[str]:
        found = []
        for outcome in self.outcomes:
            where = outcome.mutant.where(self.reference)
            if not outcome.killed_by and outcome.declared is None:
                found.append(f"mutant survives every case: {where}")
            elif outcome.killed_by and outcome.declared is not None:
                found.append(f"{self._line(outcome.declared)}: mutant '{outcome.mutant.what}' is declared equivalent, "
                             f"but {outcome.killed_by} tells it apart: remove the declaration")
        found += [f"{self._line(d)}: [[mutants.equivalent]] names no mutant of the reference: '{d.mutant}' "
                  f"(a label is 'function: change', as a survivor is reported)" for d in self.unmatched]
        return found

    def _line(self, declared: EquivalentMutant) -> str:
        return f"{self.toml}:{declared.line}" if declared.line else self.toml


def check_mutants(problem: Problem, runner: Runner, jobs: int | None = None) -> MutantReport:
    """Make every mutant of the problem's reference and grade each; `jobs` gradings at a time."""
    driver = driver_of(problem)
    inputs = driver.case_inputs(runner, problem)
    first = (inputs[0].args, inputs[0].kwargs) if inputs else ((), {})
    mutants = make_mutants(problem.reference_source, problem.entry_point, first)
    reference = kind_of(problem).reference_filename(problem)
    report = MutantReport(_relative(reference), _relative(str(problem.folder / "problem.toml")))
    declared = {d.mutant: d for d in problem.equivalent_mutants}
    report.unmatched = [d for d in problem.equivalent_mutants if d.mutant not in {m.what for m in mutants}]
    driver.case_names(runner, problem)  # the reference outputs, prepared once before the gradings share them

    def grade(mutant: Mutant) -> Outcome:
        # Graded as the reference is (trusted): a kata's rules may forbid what its reference uses.
        run = runner.run(problem, mutant.source, reference, stop_early=mutant.what not in declared, trusted=True)
        return Outcome(mutant, _killed_by(run), declared.get(mutant.what))

    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        report.outcomes = list(pool.map(grade, mutants))
    return report


def _killed_by(run: RunReport) -> str:
    if run.accepted:
        return ""
    if run.findings:
        return f"the static check ({run.findings[0].message})"
    case = next((c for c in run.cases if c.status not in ("passed", "skipped")), None)
    return f"case {case.id} ({case.name}): {verdict_words(run.verdict)}" if case else verdict_words(run.verdict)


def _relative(path: str) -> str:
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path
