"""The one path from a solution file to a recorded report, whoever grades it: CLI, language server, batch.

`Grading.grade(path, source)` matches, runs and records; the server calls `problem_for`, `run` and
`record` step by step, so that diagnostics go out before the attempt is written down. "Could not
grade" (CannotGrade, exit 2) and "graded and not accepted" (a report) never mix. docs/ARCHITECTURE.md
(step 3) follows a save through it, with the calls.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from infrakata.core.catalog.loading import Catalog
from infrakata.core.catalog.matching import match_problem
from infrakata.core.catalog.problem import Problem
from infrakata.core.config import Settings, find_workspace
from infrakata.core.errors import CannotGrade, GradingError, ProblemError
from infrakata.core.grading.results import RunReport
from infrakata.core.grading.static import foreign_language
from infrakata.core.paths import EXAMPLES
from infrakata.core.progress import store

if TYPE_CHECKING:
    from infrakata.core.grading.runner import Runner
    from infrakata.core.sandbox.pool import CancelToken


# Editors on Windows may save UTF-8 with a byte order mark; Python runs such files, and so do we.
BYTE_ORDER_MARK = "\ufeff"




MAX_SOURCE_BYTES = 1 << 20  # a solution file; larger is not a solution


def read_solution(path: Path, root: Path | None = None) -> str:
    """A solution's text: a regular file of at most MAX_SOURCE_BYTES, in UTF-8, read without ever blocking
    (a FIFO is refused, not waited on). With `root` (batch grading: the submissions' folder), a symbolic
    link is followed only into it: a link to a reference is not a submission."""
    target = path
    if root is not None and path.is_symlink():
        target = path.resolve()
        if not target.is_relative_to(root.resolve()):
            raise CannotGrade(f"{path}: a symbolic link to {target}, outside the submissions' folder {root}; a "
                              f"submission is graded as the file itself")
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer.
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise CannotGrade(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CannotGrade(f"{path}: is a folder") from None
    except OSError as error:
        raise CannotGrade(f"{path}: cannot read ({error.strerror})") from None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if stat.S_ISDIR(info.st_mode):
            raise CannotGrade(f"{path}: is a folder")
        if not stat.S_ISREG(info.st_mode):
            raise CannotGrade(f"{path}: not a regular file (a FIFO or a device?)")
        data = file.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise CannotGrade(f"{path}: larger than {MAX_SOURCE_BYTES >> 20} MiB; not a solution file")
    try:
        return data.decode("utf-8-sig")  # without the byte order mark some editors write
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise CannotGrade(f"{path}:{line}:{column}: not UTF-8 text ({error.reason}: byte "
                          f"{data[error.start]:#04x}); save the file as UTF-8") from None


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
            from infrakata.core.grading.runner import Runner  # torch: only once something is graded

            self._runner = Runner()
        return self._runner

    def problem_for(self, path: Path, source: str, explicit: str | None = None) -> Problem:
        """The problem named (a slug, a folder or a codestar JSON) or else matched from the file."""
        source = source.removeprefix(BYTE_ORDER_MARK)
        refused = foreign_language(path, source)
        if refused is not None:
            raise CannotGrade(refused)
        try:
            if explicit:
                return self.catalog.get(explicit)
            return match_problem(path, source, self.catalog, self.settings, self.workspace)
        except (LookupError, ProblemError) as error:
            raise CannotGrade(str(error)) from None

    def run(self, problem: Problem, source: str, path: Path, cancel: CancelToken | None = None,
            values: bool = False) -> RunReport:
        """`values`: record the first failing case's values (the editor's inline values, `kata run --values`)."""
        from infrakata.core.errors import SandboxUnavailable

        refused = foreign_language(path, source)
        if refused is not None:
            raise CannotGrade(refused, problem.slug)
        try:
            return self.runner.run(problem, source.removeprefix(BYTE_ORDER_MARK), path, cancel=cancel, values=values)
        except (GradingError, ProblemError, SandboxUnavailable) as error:
            raise CannotGrade(f"{problem.slug}: cannot grade: {error}", problem.slug) from None

    @staticmethod
    def record(path: Path, report: RunReport) -> str | None:
        """The attempt, in the store of the workspace the file is in (or the learner's own outside
        any workspace); not for a bundled example. -> None, or why it could not be recorded: that never
        hides a verdict."""
        if Path(path).resolve().is_relative_to(EXAMPLES):
            return None
        workspace = find_workspace(Path(path).resolve().parent)
        try:
            store.record(workspace, report)
        except Exception as error:  # noqa: BLE001 - a read-only home must not hide the verdict
            return f"progress not recorded in {store.store_path(workspace)}: {error}"
        return None

    def grade(self, path: Path, source: str, explicit: str | None = None,
              cancel: CancelToken | None = None, values: bool = False) -> Graded:
        problem = self.problem_for(path, source, explicit)
        report = self.run(problem, source, path, cancel, values)
        return Graded(problem, report, self.record(path, report))
