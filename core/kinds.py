"""Problem kinds, dispatched from one table: how each kind's problems are found, loaded and run.

native    a folder: problem.toml, reference.py, cases inline or from cases.py, wrong/. Graded case
          by case against reference outputs computed once per problem version (core/runner.py);
          stateful when [grading] state names arguments whose state after the call is graded, and
          with a benchmark when it has a [benchmark] table (core/bench.py).
codestar  a codestar judge's JSON file, whose test_code drives the solution (core/codestar.py).

A new kind is one class here with these methods, its fields on a source type of its own
(core/problem.py), and its entry in KINDS; nothing else dispatches on the kind.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from . import catalog
from .problem import Problem

if TYPE_CHECKING:
    from .results import CaseResult
    from .runner import Runner
    from .sandbox.pool import CancelToken


class ProblemKind(Protocol):
    name: str
    looks_like: str  # for "not a problem" messages

    def defines(self, path: Path) -> bool:
        """Whether `path` is one problem of this kind."""

    def problems_in(self, folder: Path) -> list[Path]:
        """The problems of this kind directly in a folder."""

    def load(self, path: Path) -> Problem:
        """Raises catalog.ProblemError naming the file, the field and the line."""

    def run(self, runner: Runner, problem: Problem, source: str, filename: str, cancel: CancelToken | None,
            entry_line: int | None) -> tuple[list[CaseResult], str]:
        """Grade a solution that passed the static checks: its cases, and what it printed."""

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        """The cases a run would have, listed as not run when the static checks fail."""

    def trusted_modules(self, problem: Problem) -> tuple[tuple[str, str], ...]:
        """(module name, path) of problem code a worker loads before the solution (to unpickle inputs)."""

    def reference_filename(self, problem: Problem) -> str:
        ...

    def wrong_solutions(self, problem: Problem) -> list[Path]:
        """Solutions the grader must reject with the verdict their header states."""


class Native:
    name = "native"
    looks_like = "a folder with problem.toml"

    def defines(self, path: Path) -> bool:
        return (path / "problem.toml").is_file() or path.name == "problem.toml"

    def problems_in(self, folder: Path) -> list[Path]:
        return [p for p in sorted(folder.iterdir()) if (p / "problem.toml").is_file()] if folder.is_dir() else []

    def load(self, path: Path) -> Problem:
        return catalog.load_native(path.parent if path.name == "problem.toml" else path)

    def run(self, runner: Runner, problem: Problem, source: str, filename: str, cancel: CancelToken | None,
            entry_line: int | None) -> tuple[list[CaseResult], str]:
        return runner.run_cases(problem, source, filename, cancel, entry_line)

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        return [case.name for case in runner.prepare(problem)]

    def trusted_modules(self, problem: Problem) -> tuple[tuple[str, str], ...]:
        cases = problem.folder / "cases.py"
        return ((problem.module_name("cases"), str(cases)),) if cases.is_file() else ()

    def reference_filename(self, problem: Problem) -> str:
        return str(problem.folder / "reference.py")

    def wrong_solutions(self, problem: Problem) -> list[Path]:
        wrong = problem.folder / "wrong"
        return sorted(wrong.glob("*.py")) if wrong.is_dir() else []


class Codestar:
    name = "codestar"
    looks_like = "a codestar .json file"

    def defines(self, path: Path) -> bool:
        return path.suffix == ".json" and not path.is_dir()

    def problems_in(self, folder: Path) -> list[Path]:
        return sorted(folder.glob("*.json")) if folder.is_dir() else []

    def load(self, path: Path) -> Problem:
        return catalog.load_codestar(path)

    def run(self, runner: Runner, problem: Problem, source: str, filename: str, cancel: CancelToken | None,
            entry_line: int | None) -> tuple[list[CaseResult], str]:
        from . import codestar  # it opens workers, which ask this table for trusted modules

        return codestar.run(problem, source, filename, runner.pool, cancel, entry_line)

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        return []  # test_code says its cases only as it runs them

    def trusted_modules(self, problem: Problem) -> tuple[tuple[str, str], ...]:
        return ()

    def reference_filename(self, problem: Problem) -> str:
        return f"{problem.source_path}:reference_code"

    def wrong_solutions(self, problem: Problem) -> list[Path]:
        return []


KINDS: dict[str, ProblemKind] = {kind.name: kind for kind in (Native(), Codestar())}


def kind_of(problem: Problem) -> ProblemKind:
    return KINDS[problem.kind]
