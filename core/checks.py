"""`kata check-problems`: the maintainers' check of every problem (and authors' of their codestar JSON).

A problem passes when it loads, its reference is accepted, its starter is not, each `wrong/`
solution gets the verdict its header states, both statements exist (README.md with `## English`
and `## 中文`, or codestar's description_md) and its cases are deterministic (`cases()` twice gives
equal inputs).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .catalog import ProblemError, expected_verdict
from .compare import Tolerance, compare
from .kinds import kind_of
from .problem import Case, Problem
from .results import VERDICTS, GradingError

if TYPE_CHECKING:
    from .runner import Runner


@dataclass
class ProblemCheck:
    """One problem's report: the checks that passed, and what is wrong."""

    name: str  # the slug, or the path of a problem that did not load
    passed: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def load_failure(error: ProblemError) -> ProblemCheck:
    return ProblemCheck(str(error.path), failures=[f"does not load: {error}"])


def _grade(runner: Runner, problem: Problem, source: str, path: Path) -> str:
    report = runner.run(problem, source, path)
    if report.accepted:
        return "accepted"
    first = next((c for c in report.cases if c.status != "passed"), None)
    detail = first.message.splitlines()[0] if first and first.message else \
        (report.findings[0].message if report.findings else "")
    return f"{report.verdict} ({report.passed}/{report.total}; {detail})" if detail else report.verdict


def check_problem(problem: Problem, runner: Runner) -> ProblemCheck:
    result = ProblemCheck(problem.slug, ["loads"])

    def check(name: str, step: Callable[[], str | None]) -> None:
        try:
            failure = step()
        except (GradingError, ProblemError, OSError) as error:
            failure = f"{name}: cannot grade: {error}"
        (result.failures.append(failure) if failure else result.passed.append(name))

    missing = kind_of(problem).missing_statement(problem)
    (result.failures.append(missing) if missing else result.passed.append("statements"))

    def reference() -> str | None:
        verdict = _grade(runner, problem, problem.reference_source, problem.folder / "reference.py")
        return None if verdict == "accepted" else f"the reference is not accepted: {verdict}"

    def starter() -> str | None:
        if not problem.starter.strip():
            return "no starter (starter.py or starter_code)"
        verdict = _grade(runner, problem, problem.starter, problem.folder / "starter.py")
        return "the starter is accepted: it must not be" if verdict == "accepted" else None

    def deterministic() -> str | None:
        if not kind_of(problem).generates_cases(problem):
            return None
        first, second = runner.case_inputs(problem), runner.case_inputs(problem)
        if len(first) != len(second):
            return f"cases() is not deterministic: {len(first)} cases, then {len(second)}"
        for index, (one, two) in enumerate(zip(first, second, strict=False), 1):
            same = compare(_inputs(two), _inputs(one), Tolerance(0.0, 0.0), root="inputs")
            if not same.ok:
                return f"cases() is not deterministic: case {index} ({one.name}) differs: {same.message}"
        return None

    check("reference accepted", reference)
    check("starter rejected", starter)
    check("deterministic cases", deterministic)
    for path in kind_of(problem).wrong_solutions(problem):
        expected = expected_verdict(path)
        label = f"wrong/{path.name}"
        if expected not in VERDICTS or expected == "accepted":
            result.failures.append(f"{label}: its first lines must say `# expect: <verdict>` (one of "
                                   f"{', '.join(v for v in VERDICTS if v != 'accepted')})")
            continue
        check(f"{label} -> {expected}", functools.partial(_wrong, runner, problem, path, expected, label))
    return result


def _wrong(runner: Runner, problem: Problem, path: Path, expected: str, label: str) -> str | None:
    verdict = _grade(runner, problem, path.read_text(encoding="utf-8"), path)
    return None if verdict.split(" ")[0] == expected else f"{label}: expected {expected}, got {verdict}"


def _inputs(case: Case) -> object:
    from .sandbox.wire import snapshot

    return {"args": [snapshot(a) for a in case.args], "kwargs": {k: snapshot(v) for k, v in case.kwargs.items()},
            "hidden": case.hidden}
