"""The one path from a solution file to a recorded report, whoever grades it: `kata run` and
`kata watch`, the language server, batch grading.

    grading = Grading(catalog, settings, workspace, runner)
    graded = grading.grade(path, source)                      # match, run, record

or step by step, as the server does so that diagnostics go out before the attempt is written down:

    problem = grading.problem_for(path, source)                # CannotGrade: no problem matches
    report = grading.run(problem, source, path, cancel=token)  # CannotGrade: the problem is broken
    warning = grading.record(path, report)                     # None, or why it was not recorded

"Could not grade" (CannotGrade, exit 2) and "graded and not accepted" (a report) never mix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import history
from .catalog import Catalog, ProblemError
from .config import Settings, find_workspace
from .matching import match_problem
from .problem import Problem
from .results import GradingError, RunReport

if TYPE_CHECKING:
    from .runner import Runner
    from .sandbox.pool import CancelToken


class CannotGrade(Exception):
    """The file could not be graded: the message says why and what to do."""


@dataclass
class Graded:
    problem: Problem
    report: RunReport
    warning: str | None = None  # the attempt could not be recorded


class Grading:
    """What grading a file takes: the catalogue, the workspace's settings (for matching) and a runner
    with its warm worker pool. Cheap to make: the runner is what carries state."""

    def __init__(self, catalog: Catalog, settings: Settings, workspace: Path | None, runner: Runner | None = None):
        self.catalog, self.settings, self.workspace = catalog, settings, workspace
        self._runner = runner

    @property
    def runner(self) -> Runner:
        if self._runner is None:
            from .runner import Runner  # torch: only once something is graded

            self._runner = Runner()
        return self._runner

    def problem_for(self, path: Path, source: str, explicit: str | None = None) -> Problem:
        """The problem named (a slug, a folder or a codestar JSON) or else matched from the file."""
        try:
            if explicit:
                return self.catalog.get(explicit)
            return match_problem(path, source, self.catalog, self.settings, self.workspace)
        except (LookupError, ProblemError) as error:
            raise CannotGrade(str(error)) from None

    def run(self, problem: Problem, source: str, path: Path, cancel: CancelToken | None = None,
            values: bool = False) -> RunReport:
        """`values`: record the first failing case's values (the editor's inline values, `kata run --values`)."""
        try:
            return self.runner.run(problem, source, path, cancel=cancel, values=values)
        except (GradingError, ProblemError) as error:
            raise CannotGrade(f"{problem.slug}: cannot grade: {error}") from None

    @staticmethod
    def record(path: Path, report: RunReport) -> str | None:
        """The attempt, in the store of the workspace the file is in (or the learner's own outside
        any workspace). -> None, or why it could not be recorded: that never hides a verdict."""
        workspace = find_workspace(Path(path).resolve().parent)
        try:
            history.record(workspace, report)
        except Exception as error:  # noqa: BLE001 - a read-only home must not hide the verdict
            return f"progress not recorded in {history.store_path(workspace)}: {error}"
        return None

    def grade(self, path: Path, source: str, explicit: str | None = None,
              cancel: CancelToken | None = None, values: bool = False) -> Graded:
        problem = self.problem_for(path, source, explicit)
        report = self.run(problem, source, path, cancel, values)
        return Graded(problem, report, self.record(path, report))
