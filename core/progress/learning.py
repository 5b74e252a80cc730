"""The learner's path: starters, reset, tiered hints, the solution after acceptance, the next kata.

The CLI and the language server call these same functions; the store is the workspace's (or the
per-user one when `workspace` is None), as in store.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.problem import Problem
from infrakata.core.catalog.statement import rendered
from infrakata.core.errors import LearningError
from infrakata.core.progress import store

# Areas in the order a learner meets them (matched case-insensitively by prefix); others follow,
# alphabetically, and kernels come last. The warm-up teaches the tool on a problem outside the areas.
AREA_ORDER = ("warm-up", "memory", "compute", "training", "parallel", "quantization", "numerics")
DIFFICULTY_ORDER = {"easy": 0, "medium": 1, "hard": 2}




# -- starters --------------------------------------------------------------------------------

def starter_file_name(problem: Problem) -> str:
    return problem.slug.replace("-", "_") + ".py"


def starter_text(problem: Problem) -> str:
    return f"# kata: {problem.slug}\n{problem.starter}"


def starter_target(problem: Problem, where: Path) -> Path:
    """The file `kata start` and `kata reset` write: `where` itself when it names a .py file, else the
    starter's name in the folder `where`."""
    if where.suffix == ".py" and not where.is_dir():
        return where
    if where.exists() and not where.is_dir():
        raise LearningError(f"{where} is a file, not a folder: give a folder (the starter goes there as "
                            f"{starter_file_name(problem)}) or the .py file to write")
    return where / starter_file_name(problem)


def write_starter(problem: Problem, where: Path) -> Path:
    """Write the starter into the folder `where` (or as the .py file `where`); never over an existing file."""
    target = starter_target(problem, where)
    if target.exists():
        raise LearningError(f"{target} already exists; keep working on it, start in another folder, or "
                            f"`kata reset {problem.slug} {target}` to start it over")
    _write(target, starter_text(problem))
    return target


def reset(problem: Problem, where: Path) -> tuple[Path, Path | None]:
    """Rewrite the starter over the learner's file, keeping it as a backup: -> (file, backup or None)."""
    target = starter_target(problem, where)
    backup = None
    if target.exists():
        backup = target.with_name(target.name + ".bak")
        number = 1
        while backup.exists():
            number += 1
            backup = target.with_name(f"{target.name}.{number}.bak")
        try:
            target.replace(backup)
        except OSError as error:
            raise LearningError(f"cannot keep {target} as {backup}: {error.strerror or error}; nothing changed") \
                from None
    _write(target, starter_text(problem))
    return target, backup


def _write(target: Path, text: str) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise LearningError(f"cannot create {target.parent}: {error.strerror or error}") from None
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        raise LearningError(f"cannot write {target}: {error.strerror or error}") from None


# -- hints -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Hint:
    tier: int  # 1-based
    total: int
    text: str
    text_zh: str = ""


def hints(problem: Problem, workspace: Path | None, tier: int | None = None) -> list[Hint]:
    """Tiers 1..`tier`, or (without `tier`) the next one not yet seen here; recorded as seen.

    Once every tier was seen, asking for the next one shows the last again.
    """
    total = max(len(problem.hints), len(problem.hints_zh))
    if total == 0:
        raise LearningError(f"{problem.slug} has no hints; `kata show {problem.slug}` has the statement")
    seen = store.hints_seen(workspace, problem.slug)
    if tier is None:
        wanted = [min(seen + 1, total)]
    elif 1 <= tier <= total:
        wanted = list(range(1, tier + 1))
    else:
        raise LearningError(f"{problem.slug} has {total} hint{'s' if total > 1 else ''}: ask for 1 to {total}")
    store.mark_hints_seen(workspace, problem.slug, wanted[-1])

    def text(tiers: tuple[str, ...], n: int) -> str:
        return tiers[n - 1] if n <= len(tiers) else ""

    return [Hint(n, total, text(problem.hints, n) or text(problem.hints_zh, n), text(problem.hints_zh, n))
            for n in wanted]


def next_hint_tier(problem: Problem, workspace: Path | None) -> int | None:
    """The tier `hints` would show next, or None when the problem has none."""
    total = max(len(problem.hints), len(problem.hints_zh))
    return min(store.hints_seen(workspace, problem.slug) + 1, total) if total else None


# -- the solution ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Solution:
    """The editorial and the reference (with a model solution where the reference breaks the kata's
    rules), or (locked) how far the learner got."""

    problem: str
    unlocked: bool
    editorial: str = ""
    reference: str = ""
    best_passed: int | None = None
    total: int | None = None
    model: str = ""  # the model solution within the kata's rules (solution.py), where there is one

    def locked_message(self) -> str:
        best = ("no attempt yet" if self.best_passed is None
                else f"your best attempt passed {self.best_passed}/{self.total} cases")
        return f"{self.problem}: the solution unlocks once the kata is accepted here ({best})"

    def sections(self) -> list[tuple[str, str]]:
        """(markdown, code) in order: the editorial, then each solution's heading and its Python (a terminal prints
        code as code: never wrapped, `kata solution`)."""
        editorial = rendered(self.editorial.strip()) or "(no editorial for this problem yet)"
        parts = [(f"# {self.problem}: solution\n\n{editorial}\n\n## Reference", self.reference.rstrip())]
        if self.model:
            parts.append(("## A solution within the kata's rules", self.model.rstrip()))
        return parts

    def markdown(self) -> str:
        return "\n\n".join(f"{text}\n\n```python\n{code}\n```" for text, code in self.sections()) + "\n"


def solution(problem: Problem, workspace: Path | None) -> Solution:
    mine = store.progress(workspace, problem.slug)
    if mine is None or not mine["accepted"]:
        return Solution(problem.slug, False, best_passed=mine["best_passed"] if mine else None,
                        total=mine["total"] if mine else None)
    model = kind_of(problem).model_solution(problem)
    return Solution(problem.slug, True, problem.editorial, problem.reference_source,
                    model=model.read_text(encoding="utf-8") if model is not None else "")


# -- progress and the way on -----------------------------------------------------------------

def area_key(category: str) -> tuple[int, str]:
    lowered = category.lower()
    if lowered.startswith("kernel"):
        return (len(AREA_ORDER) + 1, lowered)
    for index, prefix in enumerate(AREA_ORDER):
        if lowered.startswith(prefix):
            return (index, lowered)
    return (len(AREA_ORDER), lowered)


def difficulty_key(difficulty: str) -> tuple[int, str]:
    return (DIFFICULTY_ORDER.get(difficulty.lower(), len(DIFFICULTY_ORDER)), difficulty.lower())


def course_order(problems: Iterable[Problem]) -> list[Problem]:
    """By area, then Easy < Medium < Hard, then slug."""
    return sorted(problems, key=lambda p: (area_key(p.category), difficulty_key(p.difficulty), p.slug))


def next_problem(problems: Iterable[Problem], workspace: Path | None, after: str | None = None) -> Problem | None:
    """The first problem not yet accepted here, in course order (`after`: skip that one)."""
    solved = {row["problem"] for row in store.summary(workspace) if row["accepted"]}
    return next((p for p in course_order(problems) if p.slug not in solved and p.slug != after), None)
