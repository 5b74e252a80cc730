"""What a user is told when something cannot be done, and the exit codes every kata command and
batch grading share.

Every error core raises for a user to read is a KataError: its message names the file (and line) and
the fix, and it carries the exit code a command ends with. The exceptions that stay inside the grader
(a worker's message not believed, a run cancelled by a newer one) are not.
"""

from dataclasses import dataclass
from pathlib import Path

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_CANNOT_GRADE = 0, 1, 2


class KataError(Exception):
    """Something the user asked for cannot be done, and the message says why and what to do."""

    exit_code = EXIT_CANNOT_GRADE


class UsageError(KataError):
    """The command line asks for something that is not there or cannot be: a filter value no problem has, flags
    that do not go together, an output file that cannot be written. Exit 2, as argparse's own usage errors."""


@dataclass(frozen=True)
class ProblemError(KataError):
    """A problem that cannot be loaded (core/catalog/): its file, the field and the line at fault, and why. It never
    stops the other problems from loading."""

    path: Path
    message: str
    field: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        what = f" field '{self.field}':" if self.field else ""
        return f"{where}:{what} {self.message}"


class NoMatch(KataError, LookupError):
    """No problem matches a file; the message says how to make one match."""


class SandboxUnavailable(KataError, RuntimeError):
    """Grading cannot run on this platform, the zygote could not start, or (isolation "strict") a layer
    of the sandbox is missing."""


class LearningError(KataError):
    """What the learner asked for cannot be done; the message says why and what to do."""


class GradingError(KataError):
    """The problem itself could not be graded (a broken reference, cases or test_code)."""


class CannotGrade(KataError):
    """The file could not be graded: the message says why and what to do. `problem`: the slug of the
    problem it was to be graded against, when that much was found."""

    def __init__(self, message: str, problem: str | None = None):
        super().__init__(message)
        self.problem = problem
