"""The catalogue: every problem found under the bundled problems and the user's paths, each loaded by the first
kind that recognises it (core/catalog/kinds/: native folders, codestar JSON files, KernelBench files, LeetGPU
challenges).

A broken problem becomes a ProblemError naming the file, the field and the line; it never stops
the other problems from loading.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover - exercised on 3.10 only
    pass

from infrakata.core.catalog.kinds import KINDS
from infrakata.core.catalog.problem import Problem
from infrakata.core.errors import ProblemError
from infrakata.core.paths import BUNDLED

MISSING_PROBLEM_PATH = "problem path does not exist"


class Catalog:
    """Every problem found, by slug (the bundled catalogue and any extra paths), and the errors of the
    ones that could not be loaded, each naming its file and line."""

    def __init__(self, problems: dict[str, Problem], errors: list[ProblemError],
                 renamed: list[tuple[Path, str, str]] | None = None):
        self.problems = problems
        self.errors = errors
        # (file, its slug, the slug it is loaded under): a problem of a format loaded unchanged (codestar JSON,
        # KernelBench) whose slug an earlier problem has, loaded as itself under its kind's prefix.
        self.renamed = renamed or []

    @staticmethod
    def _admitted(problem: Problem, problems: dict[str, Problem]) -> Problem | None:
        """`problem` as the catalogue takes it beside `problems`: as it is, or (its slug taken, and its format
        one a user does not edit) under `<kind>-<slug>`, so that it is graded and its progress recorded as
        itself; None where that cannot be (a native folder: its slug is its folder's name, to rename)."""
        taken = problems.get(problem.slug)
        if taken is None or taken.source_path == problem.source_path:
            return problem
        if not KINDS[problem.kind].renamed_when_taken:
            return None
        renamed = replace(problem, slug=f"{problem.kind}-{problem.slug}")
        taken = problems.get(renamed.slug)
        return renamed if taken is None or taken.source_path == problem.source_path else None

    def renaming_notes(self) -> list[str]:
        """What every command says at once of each problem loaded under another slug than its own."""
        return [f"{path}: its slug '{slug}' is already that of \"{self.problems[slug].title}\" "
                f"({self.problems[slug].source_path}); it is loaded as '{renamed_to}', graded and its progress "
                f"recorded as itself: `kata start {renamed_to}`, or `# kata: {renamed_to}` in a solution"
                for path, slug, renamed_to in self.renamed]

    @classmethod
    def load(cls, extra_paths: Iterable[Path | str] = (), include_bundled: bool = True) -> Catalog:
        problems: dict[str, Problem] = {}
        errors: list[ProblemError] = []
        renamed: list[tuple[Path, str, str]] = []
        roots = ([BUNDLED] if include_bundled else []) + [Path(p).expanduser() for p in extra_paths]
        for root in roots:
            for candidate in _candidates(root, errors):
                try:
                    loaded = load_problem(candidate)
                except ProblemError as error:
                    errors.append(error)
                    continue
                problem = cls._admitted(loaded, problems)
                if problem is None:
                    errors.append(ProblemError(candidate, f"slug '{loaded.slug}' is already defined by "
                                               f"{problems[loaded.slug].source_path}; rename one", "slug"))
                    continue
                if problem.slug != loaded.slug:
                    renamed.append((candidate, loaded.slug, problem.slug))
                problems[problem.slug] = problem
        return cls(dict(sorted(problems.items())), errors, renamed)

    def get(self, slug_or_path: str) -> Problem:
        """A slug, or a problem folder or codestar JSON given by whoever runs the command (`kata run
        --problem`, kata.toml: trusted, its code runs in the grader; what is graded never chooses this)."""
        if slug_or_path in self.problems:
            return self.problems[slug_or_path]
        path = Path(slug_or_path).expanduser()
        if path.exists():
            resolved = checked_problem_path(path)
            known = next((p for p in self.problems.values() if p.source_path == resolved), None)
            if known is not None:
                return known
            loaded = load_problem(resolved)
            problem = self._admitted(loaded, self.problems)
            if problem is None:
                raise ProblemError(path, f"slug '{loaded.slug}' is already a problem's "
                                         f"({self.problems[loaded.slug].source_path}): rename its folder", "slug")
            return problem
        raise LookupError(f"no problem '{slug_or_path}' (neither a slug nor a path){self._hint(slug_or_path)}")

    def resolve(self, name: str, relative_to: Path) -> Problem:
        """A problem named by what is graded (a `# kata:` header, a manifest line): a slug, or a path to a
        problem already in the catalogue (configured problem folders included). Nothing else is loaded,
        so a submission cannot bring the problem (and test_code) it is graded against."""
        if name in self.problems:
            return self.problems[name]
        candidate = (relative_to / Path(name).expanduser())
        try:
            resolved = candidate.resolve(strict=True)
        except (OSError, RuntimeError):
            resolved = None
        if resolved is not None:
            if resolved.name == "problem.toml":
                resolved = resolved.parent
            for problem in self.problems.values():
                if problem.source_path == resolved:
                    return problem
            raise LookupError(f"'{name}' is not a problem of the catalogue: a problem graded from a file must be a "
                              f"slug, or lie in a configured problem folder (`problems` in kata.toml, or --problems)")
        raise LookupError(f"no problem '{name}' (neither a slug nor a path){self._hint(name)}")

    def _hint(self, name: str) -> str:
        """The slugs a mistyped name may mean (a typo, or a part of one), or where to find them."""
        close = [*difflib.get_close_matches(name, self.problems, n=3, cutoff=0.6),
                 *(s for s in self.problems if name in s or s in name)]
        close = list(dict.fromkeys(close))[:3]
        return f"; did you mean {', '.join(close)}?" if close else "; `kata list` shows the catalogue"


def checked_problem_path(path: Path) -> Path:
    """A problem path, refused (ProblemError) unless it is a folder or a regular file: reading a FIFO or a
    device would block or never end."""
    import stat

    resolved = path.resolve()
    try:
        mode = resolved.stat().st_mode
    except OSError as error:
        raise ProblemError(path, f"cannot be read ({error.strerror})") from None
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        raise ProblemError(path, "is not a regular file or a folder (a FIFO or a device?): not a problem")
    return resolved


def _candidates(root: Path, errors: list[ProblemError]) -> list[Path]:
    if not root.exists():
        errors.append(ProblemError(root, MISSING_PROBLEM_PATH))
        return []
    try:
        checked_problem_path(root)
    except ProblemError as error:
        errors.append(error)
        return []
    if any(kind.defines(root) for kind in KINDS.values()):
        return [root]
    return [path for kind in KINDS.values() for path in kind.problems_in(root)]


def load_problem(path: Path) -> Problem:
    """The problem a path defines, by the first kind that recognises it (core/catalog/kinds/)."""
    path = path.resolve()
    for kind in KINDS.values():
        if kind.defines(path):
            return kind.load(path)
    raise ProblemError(path, "not a problem: expected " + " or ".join(k.looks_like for k in KINDS.values()))


