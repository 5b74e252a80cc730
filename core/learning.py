"""The learner's path: starters, reset, tiered hints, the solution after acceptance, the next kata.

The CLI and the language server call these same functions; the store is the workspace's (or the
per-user one when `workspace` is None), as in history.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from . import history
from .problem import Problem
from .statement import rendered

# Areas in the order a learner meets them (matched case-insensitively by prefix); others follow,
# alphabetically, and kernels come last. The warm-up teaches the tool on a problem outside the areas.
AREA_ORDER = ("warm-up", "memory", "compute", "training", "parallel", "quantization", "numerics")
DIFFICULTY_ORDER = {"easy": 0, "medium": 1, "hard": 2}


class LearningError(Exception):
    """What the learner asked for cannot be done; the message says why and what to do."""


# -- starters --------------------------------------------------------------------------------

def starter_file_name(problem: Problem) -> str:
    return problem.slug.replace("-", "_") + ".py"


def starter_text(problem: Problem) -> str:
    return f"# kata: {problem.slug}\n{problem.starter}"


def write_starter(problem: Problem, folder: Path) -> Path:
    """Write the starter into `folder`; never over an existing file."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / starter_file_name(problem)
    if target.exists():
        raise LearningError(f"{target} already exists; keep working on it, pass another folder to `kata start`, "
                            f"or `kata reset {problem.slug}` to start it over")
    target.write_text(starter_text(problem), encoding="utf-8")
    return target


def reset_target(problem: Problem, where: Path) -> Path:
    """The file `kata reset` rewrites: `where` itself when it is a file, else the starter's name in it."""
    return where if where.suffix == ".py" and not where.is_dir() else where / starter_file_name(problem)


def reset(problem: Problem, where: Path) -> tuple[Path, Path | None]:
    """Rewrite the starter over the learner's file, keeping it as a backup: -> (file, backup or None)."""
    target = reset_target(problem, where)
    backup = None
    if target.exists():
        backup = target.with_name(target.name + ".bak")
        number = 1
        while backup.exists():
            number += 1
            backup = target.with_name(f"{target.name}.{number}.bak")
        target.replace(backup)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(starter_text(problem), encoding="utf-8")
    return target, backup


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
    seen = history.hints_seen(workspace, problem.slug)
    if tier is None:
        wanted = [min(seen + 1, total)]
    elif 1 <= tier <= total:
        wanted = list(range(1, tier + 1))
    else:
        raise LearningError(f"{problem.slug} has {total} hint{'s' if total > 1 else ''}: ask for 1 to {total}")
    history.mark_hints_seen(workspace, problem.slug, wanted[-1])

    def text(tiers: tuple[str, ...], n: int) -> str:
        return tiers[n - 1] if n <= len(tiers) else ""

    return [Hint(n, total, text(problem.hints, n) or text(problem.hints_zh, n), text(problem.hints_zh, n))
            for n in wanted]


def next_hint_tier(problem: Problem, workspace: Path | None) -> int | None:
    """The tier `hints` would show next, or None when the problem has none."""
    total = max(len(problem.hints), len(problem.hints_zh))
    return min(history.hints_seen(workspace, problem.slug) + 1, total) if total else None


# -- the solution ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Solution:
    """The editorial and the reference, or (locked) how far the learner got."""

    problem: str
    unlocked: bool
    editorial: str = ""
    reference: str = ""
    best_passed: int | None = None
    total: int | None = None

    def locked_message(self) -> str:
        best = ("no attempt yet" if self.best_passed is None
                else f"your best attempt passed {self.best_passed}/{self.total} cases")
        return f"{self.problem}: the solution unlocks once the kata is accepted here ({best})"

    def markdown(self) -> str:
        editorial = rendered(self.editorial.strip()) or "(no editorial for this problem yet)"
        return (f"# {self.problem}: solution\n\n{editorial}\n\n## Reference\n\n```python\n"
                f"{self.reference.rstrip()}\n```\n")


def solution(problem: Problem, workspace: Path | None) -> Solution:
    mine = history.progress(workspace, problem.slug)
    if mine is None or not mine["accepted"]:
        return Solution(problem.slug, False, best_passed=mine["best_passed"] if mine else None,
                        total=mine["total"] if mine else None)
    return Solution(problem.slug, True, problem.editorial, problem.reference_source)


# -- progress and the way on -----------------------------------------------------------------

def area_key(category: str) -> tuple[int, str]:
    lowered = category.lower()
    if lowered.startswith("kernel"):
        return (len(AREA_ORDER) + 1, lowered)
    for index, prefix in enumerate(AREA_ORDER):
        if lowered.startswith(prefix):
            return (index, lowered)
    return (len(AREA_ORDER), lowered)


def course_order(problems: Iterable[Problem]) -> list[Problem]:
    """By area, then Easy < Medium < Hard, then slug."""
    return sorted(problems, key=lambda p: (area_key(p.category), DIFFICULTY_ORDER.get(p.difficulty.lower(), 3),
                                           p.slug))


def next_problem(problems: Iterable[Problem], workspace: Path | None, after: str | None = None) -> Problem | None:
    """The first problem not yet accepted here, in course order (`after`: skip that one)."""
    solved = {row["problem"] for row in history.summary(workspace) if row["accepted"]}
    return next((p for p in course_order(problems) if p.slug not in solved and p.slug != after), None)
