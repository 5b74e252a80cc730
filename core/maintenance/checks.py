"""`kata check-problems`: the maintainers' check of every problem (and authors' of their codestar JSON).

A problem passes when it loads, its reference is accepted, a simulation.py (a second, independent
reference) agrees with it on every case, a solution within the kata's rules is accepted (the
reference, graded as a learner's; or, where the reference uses what the kata forbids, a model
solution, while the reference, its mutants and simulation.py are graded as the trusted code they
are), every tripwire names something, its starter is not accepted, each `wrong/` and `wrong/cheats/`
solution gets the verdict its header states, both statements exist (README.md with `## English` and `## 中文`)
and say the same code, its tags are in the vocabulary, the katas it builds on come before it, and
its cases are deterministic (`cases()` twice gives equal inputs). With --mutants, some case also
rejects every mutant of the reference (core/maintenance/mutants/).
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.kinds.native import expected_verdict
from infrakata.core.catalog.problem import Case, Problem
from infrakata.core.catalog.statement import bilingual_gaps, sections
from infrakata.core.errors import GradingError, ProblemError
from infrakata.core.grading.compare import Tolerance, compare
from infrakata.core.grading.kinds import driver_of
from infrakata.core.grading.results import VERDICTS
from infrakata.core.paths import BUNDLED
from infrakata.core.progress.learning import course_order

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

if TYPE_CHECKING:
    from infrakata.core.grading.runner import Runner


@dataclass
class ProblemCheck:
    """One problem's report: the checks that passed, and what is wrong."""

    name: str  # the slug, or the path of a problem that did not load
    passed: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # what makes it weak, though it passes
    mutants: str = ""  # with --mutants: how many were made, killed, declared equivalent

    @property
    def ok(self) -> bool:
        return not self.failures


def load_failure(error: ProblemError) -> ProblemCheck:
    return ProblemCheck(str(error.path), failures=[f"does not load: {error}"])


# The fresh case's seeds here: the same every check (a grading draws its own), and several for the check
# that the generator makes cases the reference's own outputs pass on.
CHECK_SEED, FRESH_SEEDS = 0, range(1, 6)


def _grade(runner: Runner, problem: Problem, source: str, path: Path, trusted: bool = False,
           fresh_seed: int = CHECK_SEED) -> str:
    report = runner.run(problem, source, path, trusted=trusted, fresh_seed=fresh_seed)
    if report.accepted:
        return "accepted"
    first = next((c for c in report.cases if c.status != "passed"), None)
    detail = first.message.splitlines()[0] if first and first.message else \
        (report.findings[0].message if report.findings else "")
    return f"{report.verdict} ({report.passed}/{report.total}; {detail})" if detail else report.verdict


def check_problem(problem: Problem, runner: Runner, mutants: bool = False,
                  catalog: Mapping[str, Problem] | None = None) -> ProblemCheck:
    """`mutants`: also make every mutant of the reference and require a case to reject each.
    `catalog`: the problems a `builds_on` may name (default: this one alone)."""
    result = ProblemCheck(problem.slug, ["loads"])

    def check(name: str, step: Callable[[], str | None]) -> None:
        listed(name, lambda: [failure] if (failure := step()) else [])

    def listed(name: str, failures: Callable[[], list[str]]) -> None:
        try:
            found = failures()
        except (GradingError, ProblemError, OSError) as error:
            found = [f"{name}: cannot grade: {error}"]
        (result.failures.extend(found) if found else result.passed.append(name))

    missing = kind_of(problem).missing_statement(problem)
    (result.failures.append(missing) if missing else result.passed.append("statements"))
    listed("both languages say the same code",
           lambda: bilingual_gaps(problem.statement, str(problem.statement_path or problem.source_path)))
    if problem.builds_on:
        listed("builds on earlier katas", lambda: progression_gaps(problem, catalog or {problem.slug: problem}))
    if kind_of(problem).vocabulary_tags:
        listed("tags", lambda: unknown_tags(problem))
    if problem.statement_path is not None:
        check("a return type the statement fixes is held", lambda: loose_return_type(problem))

    model = kind_of(problem).model_solution(problem)
    reference_path = problem.folder / "reference.py"

    reference_source = kind_of(problem).reference_as_solution(problem)

    def reference() -> str | None:
        # Without a model solution, the reference shows that the kata's rules can be met: graded as a
        # learner's. With one, it is graded as the trusted code it is (it may use what the kata forbids).
        verdict = _grade(runner, problem, reference_source, reference_path, trusted=model is not None)
        if verdict == "accepted":
            return None
        if model is None and _grade(runner, problem, reference_source, reference_path, trusted=True) == "accepted":
            return (f"the reference breaks the kata's own rules ({verdict}): add solution.py, a model solution "
                    f"within them, and the reference is graded as trusted code")
        return f"the reference is not accepted: {verdict}"

    def model_solution(path: Path) -> str | None:
        verdict = _grade(runner, problem, path.read_text(encoding="utf-8"), path)
        return None if verdict == "accepted" else f"{path.name}, the model solution, is not accepted: {verdict}"

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

    def simulation(path: Path) -> str | None:
        verdict = _grade(runner, problem, path.read_text(encoding="utf-8"), path, trusted=True)
        return None if verdict == "accepted" else f"simulation.py disagrees with the reference: {verdict}"

    def fresh() -> str | None:
        # A solution within the rules, on several draws of the fresh case: a generator that can make a case
        # the tolerance cannot hold (or the signature does not take) would flip a right answer's verdict.
        path = model or reference_path
        source = model.read_text(encoding="utf-8") if model else reference_source
        for seed in FRESH_SEEDS:
            verdict = _grade(runner, problem, source, path, fresh_seed=seed)
            if verdict != "accepted":
                return f"fresh(seed={seed}): {path.name} is not accepted: {verdict}"
        return None

    listed("tripwires name what they forbid", lambda: tripwire_gaps(problem))
    check("reference accepted", reference)
    if model is not None:
        check("model solution accepted within the kata's rules", functools.partial(model_solution, model))
    simulated = kind_of(problem).simulation(problem)
    if simulated is not None:
        check("simulation agrees with the reference", functools.partial(simulation, simulated))
    if kind_of(problem).has_fresh_cases(problem):
        check(f"fresh cases accepted (seeds {FRESH_SEEDS.start}-{FRESH_SEEDS.stop - 1})", fresh)
    check("starter rejected", starter)
    check("deterministic cases", deterministic)
    for path in kind_of(problem).wrong_solutions(problem):
        expected = expected_verdict(path)
        label = str(path.relative_to(problem.folder))
        if expected not in VERDICTS or expected == "accepted":
            result.failures.append(f"{label}: its first lines must say `# expect: <verdict>` (one of "
                                   f"{', '.join(v for v in VERDICTS if v != 'accepted')})")
            continue
        check(f"{label} -> {expected}", functools.partial(_wrong, runner, problem, path, expected, label))
    if mutants:
        listed("mutants killed", functools.partial(_mutant_failures, problem, runner, result))
    try:
        result.warnings += driver_of(problem).weaknesses(runner, problem)
    except (GradingError, ProblemError, OSError):
        pass  # a problem that cannot be graded has failed above, saying why
    return result


def _mutant_failures(problem: Problem, runner: Runner, result: ProblemCheck) -> list[str]:
    from infrakata.core.maintenance.mutants.check import check_mutants

    report = check_mutants(problem, runner)
    result.mutants = report.summary()
    return report.failures()


def progression_gaps(problem: Problem, catalog: Mapping[str, Problem]) -> list[str]:
    """What is wrong with a problem's `builds_on`: each kata it names must exist, come earlier in course
    order, and be named (`slug`) in both languages of the statement, so that the learner is told."""
    toml = problem.folder / "problem.toml"
    text = toml.read_text(encoding="utf-8") if toml.is_file() else ""
    where = f"{toml}:{text.count(chr(10), 0, text.find('builds_on')) + 1}" if "builds_on" in text else str(toml)
    order = {p.slug: index for index, p in enumerate(course_order({**catalog, problem.slug: problem}.values()))}
    said = {language: body for language, (_, body) in sections(problem.statement).items()}
    gaps = []
    for earlier in problem.builds_on:
        if earlier not in catalog:
            gaps.append(f"{where}: builds_on names '{earlier}', which is not in the catalogue")
            continue
        if order[earlier] > order[problem.slug]:
            gaps.append(f"{where}: builds on '{earlier}', which comes later in course order (area, then Easy < Medium "
                        f"< Hard, then slug): move one of them")
        for language, body in said.items():
            if f"`{earlier}`" not in body:
                gaps.append(f"{problem.statement_path or toml}: the {language} section does not say that this kata "
                            f"builds on `{earlier}`")
    return gaps


# A statement that fixes the entry point's return type: its signature (`-> float:`) or its words.
_FIXED_RETURN = re.compile(r"\)\s*->\s*(float|int)\s*:|as a Python `?(float|int)`?", re.IGNORECASE)


def loose_return_type(problem: Problem) -> str | None:
    """Where the statement fixes the return type (a Python float, an int) but the kata would accept another (a
    0-dim tensor keeping an autograd graph alive, an int for a float): the line, and the fix."""
    if problem.grading.exact_types or problem.statement_path is None:
        return None
    for number, line in enumerate(problem.statement.splitlines(), 1):
        found = _FIXED_RETURN.search(line)
        if found:
            return (f"{problem.statement_path}:{number}: the statement fixes the return type "
                    f"({found.group(0).strip()}) but the kata accepts others: set `exact_types = true` under "
                    f"[grading] in problem.toml")
    return None


def tripwire_gaps(problem: Problem) -> list[str]:
    """A message per dotted name of `forbidden_calls` whose module exists but which names nothing (a
    misspelling would leave the call allowed at run time), or that no tripwire can be set on."""
    from infrakata.core.sandbox import tripwires

    gaps = []
    for name in problem.forbidden_calls:
        try:
            target = tripwires.resolve(name)
        except LookupError as error:
            gaps.append(f"{_where(problem, name)}: forbidden_calls: {error}: fix the spelling, or write the alias "
                        f"the static check should see (`F.softmax`) without a module's name in front")
            continue
        if target is not None and not tripwires.wirable(target):
            gaps.append(f"{_where(problem, name)}: forbidden_calls: '{name}' cannot carry a tripwire (it is defined "
                        f"in torch's C extension): name it where Python defines it (`torch.Tensor.x`, not "
                        f"`torch._C.TensorBase.x`)")
    return gaps


def _where(problem: Problem, text: str) -> str:
    toml = problem.folder / "problem.toml"
    content = toml.read_text(encoding="utf-8") if toml.is_file() else ""
    at = content.find(f'"{text}"')
    return f"{toml}:{content.count(chr(10), 0, at) + 1}" if at >= 0 else str(problem.source_path)


VOCABULARY = "tags.toml"


def tag_vocabulary(folder: Path) -> dict[str, Path]:
    """Tag -> the tags.toml that defines it: the bundled catalogue's, and one beside `folder`'s problems."""
    vocabulary: dict[str, Path] = {}
    for path in dict.fromkeys((BUNDLED / VOCABULARY, folder.parent / VOCABULARY)):
        if not path.is_file():
            continue
        try:
            tags = tomllib.loads(path.read_text(encoding="utf-8")).get("tags", {})
        except tomllib.TOMLDecodeError as error:
            raise ProblemError(path, f"invalid TOML: {error}") from None
        if not isinstance(tags, dict):
            raise ProblemError(path, "must have a [tags] table: tag = \"what it means\"", "tags")
        for tag in tags:
            if tag != tag.lower():
                raise ProblemError(path, f"tag '{tag}' must be lower case", "tags")
            vocabulary.setdefault(tag, path)
    return vocabulary


def unknown_tags(problem: Problem) -> list[str]:
    """A message per tag of the problem that its vocabulary lacks, with the file and line, and the
    spelling the vocabulary has when it differs only in case or separators."""
    vocabulary = tag_vocabulary(problem.folder)
    spelled = {_squeezed(tag): tag for tag in vocabulary}
    toml = problem.folder / "problem.toml"
    text = toml.read_text(encoding="utf-8") if toml.is_file() else ""
    start = max(text.find("tags"), 0)
    messages = []
    for tag in problem.tags:
        if tag in vocabulary:
            continue
        where = text.find(f'"{tag}"', start)
        line = f":{text.count(chr(10), 0, where) + 1}" if where >= 0 else ""
        known = spelled.get(_squeezed(tag))
        fix = f"write '{known}'" if known else f"use one of its tags, or add '{tag.lower()}' to it"
        messages.append(f"{toml}{line}: tag '{tag}' is not in the tag vocabulary ({BUNDLED / VOCABULARY}); {fix}")
    return messages


def _squeezed(tag: str) -> str:
    return re.sub(r"[\s_-]+", "", tag.lower())


def _wrong(runner: Runner, problem: Problem, path: Path, expected: str, label: str) -> str | None:
    verdict = _grade(runner, problem, path.read_text(encoding="utf-8"), path)
    return None if verdict.split(" ")[0] == expected else f"{label}: expected {expected}, got {verdict}"


def _inputs(case: Case) -> object:
    from infrakata.core.sandbox.wire import snapshot

    return {"args": [snapshot(a) for a in case.args], "kwargs": {k: snapshot(v) for k, v in case.kwargs.items()},
            "hidden": case.hidden}
