"""Native problems: a folder with problem.toml, reference.py, cases inline or from cases.py, wrong/ and a
README.md statement (problems/FORMAT.md). Graded case by case against the reference's outputs
(core/grading/kinds/native.py); stateful when [grading] state names arguments whose state after the call is
graded, and timed by `kata bench` when it has a [benchmark] table (core/bench/benchmark.py)."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, get_args

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from infrakata.core import pysource
from infrakata.core.catalog.fields import Fields, shared_fields
from infrakata.core.catalog.kinds.base import ProblemKind
from infrakata.core.catalog.problem import (
    Benchmark,
    Case,
    EagerRule,
    EquivalentMutant,
    Gate,
    GradingRules,
    Problem,
    Timing,
)
from infrakata.core.errors import ProblemError


@dataclass(frozen=True)
class NativeSource:
    """What only a native problem has: its folder (problem.toml, reference.py, cases.py, wrong/) and
    its inline [[cases]]."""

    folder: Path
    inline_cases: tuple[Case, ...] = ()
    model_solution: Path | None = None  # a solution within the kata's rules (problems/FORMAT.md)
    kind: ClassVar[str] = "native"

    @property
    def path(self) -> Path:
        return self.folder


class Native(ProblemKind):
    name = "native"
    looks_like = "a folder with problem.toml"
    vocabulary_tags = True
    renamed_when_taken = False  # its slug is its folder's name: the user renames the folder

    def defines(self, path: Path) -> bool:
        return (path / "problem.toml").is_file() or path.name == "problem.toml"

    def load(self, path: Path) -> Problem:
        return load_native(path.parent if path.name == "problem.toml" else path)

    def problems_in(self, folder: Path) -> list[Path]:
        return [p for p in sorted(folder.iterdir()) if (p / "problem.toml").is_file()] if folder.is_dir() else []

    def importable_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        cases = problem.folder / "cases.py"
        if not cases.is_file():
            return ()
        return ((problem.module_name("cases"), str(cases), cases.read_text(encoding="utf-8")),)

    def problem_code(self, problem: Problem) -> tuple[str, ...]:
        return (problem.reference_source,)

    def reference_filename(self, problem: Problem) -> str:
        return str(problem.folder / "reference.py")

    def reference_as_solution(self, problem: Problem) -> str:
        return problem.reference_source

    def wrong_solutions(self, problem: Problem) -> list[Path]:
        """wrong/*.py (mistakes) and wrong/cheats/*.py (shortcuts that skip what the kata teaches)."""
        wrong = problem.folder / "wrong"
        return sorted([*wrong.glob("*.py"), *(wrong / "cheats").glob("*.py")]) if wrong.is_dir() else []

    def simulation(self, problem: Problem) -> Path | None:
        path = problem.folder / "simulation.py"
        return path if path.is_file() else None

    def model_solution(self, problem: Problem) -> Path | None:
        return problem.source.model_solution if isinstance(problem.source, NativeSource) else None

    def missing_statement(self, problem: Problem) -> str | None:
        if problem.statement_path is None:
            return "no statement: README.md is missing"
        missing = [name for name, pattern in (("## English", r"^##\s*English"), ("## 中文", r"^##\s*中文"))
                   if not re.search(pattern, problem.statement, re.MULTILINE)]
        return f"README.md has no {' and no '.join(missing)} section" if missing else None

    def generates_cases(self, problem: Problem) -> bool:
        return isinstance(problem.source, NativeSource) and not problem.source.inline_cases

    def has_fresh_cases(self, problem: Problem) -> bool:
        return "fresh" in _defined_functions(problem.folder / "cases.py")

    def benchmark(self, problem: Problem) -> Timing | None:
        return "table" if problem.benchmark is not None else None

    def without_benchmark(self, problem: Problem) -> str:
        return f"no [benchmark] table in {problem.folder / 'problem.toml'} (problems/FORMAT.md says how to add one)"


def load_native(folder: Path) -> Problem:
    toml_path = folder / "problem.toml"
    try:
        text = toml_path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except FileNotFoundError:
        raise ProblemError(toml_path, "missing problem.toml") from None
    except tomllib.TOMLDecodeError as error:
        line = re.search(r"line (\d+)", str(error))
        raise ProblemError(toml_path, f"invalid TOML: {error}", None, int(line.group(1)) if line else None) from None
    top = Fields(data, toml_path, text)
    slug = top.get("slug", str, check=lambda s: re.fullmatch(r"[a-z0-9][a-z0-9-]*", s) is not None,
                   expect="lowercase letters, digits and hyphens")
    if slug != folder.name:
        raise top.error("slug", f"'{slug}' must equal the folder name '{folder.name}'")
    # Scalar fields first, so a typo there is reported before missing files or cases.
    metadata = shared_fields(top, slug)
    metadata["title_zh"] = top.get("title_zh", str, "")
    grading = _grading(Fields(top.get("grading", dict, {}), toml_path, text, "grading."))
    benchmark_table = top.get("benchmark", dict, None)
    benchmark = _benchmark(Fields(benchmark_table, toml_path, text, "benchmark.")) if benchmark_table else None

    reference = folder / "reference.py"
    if not reference.is_file():
        raise ProblemError(reference, "missing reference.py (the trusted solution defining the entry point)")
    has_cases_py = (folder / "cases.py").is_file()
    inline = _inline_cases(top, folder / "cases.py")
    if benchmark and not has_cases_py:
        raise top.error("benchmark", "needs cases.py with the make_inputs and work functions")

    statement_path = folder / "README.md"
    starter_path = folder / "starter.py"
    model = _model_solution(top, folder)
    return Problem(
        **metadata,
        grading=grading,
        benchmark=benchmark,
        statement=statement_path.read_text(encoding="utf-8") if statement_path.is_file() else "",
        statement_path=statement_path if statement_path.is_file() else None,
        reference_source=reference.read_text(encoding="utf-8"),
        starter=starter_path.read_text(encoding="utf-8") if starter_path.is_file() else "",
        source=NativeSource(folder, inline, model),
        equivalent_mutants=_equivalent_mutants(Fields(top.get("mutants", dict, {}), toml_path, text, "mutants.")),
        builds_on=top.strings("builds_on"),
        **_learning_fields(top, folder),
    )


def _model_solution(top: Fields, folder: Path) -> Path | None:
    """A solution within the kata's rules, graded by check-problems as a learner's: `model_solution`
    (a path from the problem's folder: a kernel kata names our kernel in kernels/), else solution.py."""
    named = top.get("model_solution", str, None)
    path = folder / (named or "solution.py")
    if named is not None and not path.is_file():
        raise top.error("model_solution", f"names {path}, which is not a file")
    return path if path.is_file() else None


def _filled(text: str) -> bool:
    return bool(text.strip())


def _equivalent_mutants(fields: Fields) -> tuple[EquivalentMutant, ...]:
    """`[[mutants.equivalent]]`: mutants of the reference no input tells apart, each with its reason."""
    declared = []
    for index, table in enumerate(fields.get("equivalent", list, []), 1):
        if not isinstance(table, dict):
            raise fields.error("equivalent", f"entry {index} must be a table ([[mutants.equivalent]])")
        entry = Fields(table, fields.path, fields.text, f"{fields.prefix}equivalent[{index}].")
        mutant = entry.get("mutant", str, check=_filled, expect="the mutant's label as check-problems prints it")
        reason = entry.get("reason", str, check=_filled, expect="why no input can tell it apart")
        where = fields.text.find(mutant)
        declared.append(EquivalentMutant(mutant, reason, fields.text.count("\n", 0, where) + 1 if where >= 0 else None))
    return tuple(declared)


def _learning_fields(top: Fields, folder: Path) -> dict[str, Any]:
    """Hints (`hints`, `hints_zh`) and the editorial (EDITORIAL.md): what a learner unlocks."""
    editorial = folder / "EDITORIAL.md"
    return dict(hints=top.strings("hints"), hints_zh=top.strings("hints_zh"),
                editorial=editorial.read_text(encoding="utf-8") if editorial.is_file() else "")


def _grading(fields: Fields) -> GradingRules:
    return GradingRules(
        comparison=fields.get("comparison", str, "allclose", lambda v: v in ("allclose", "relative_norm"),
                              '"allclose" or "relative_norm"'),
        tolerance=fields.get("tolerance", float, 4e-5, lambda v: v >= 0, "a number >= 0"),
        mutable=fields.strings("mutable"),
        state=fields.strings("state"),
        output_names=fields.strings("output_names"),
        device=fields.get("device", str, "cpu", lambda v: v in ("cpu", "cuda"), '"cpu" or "cuda"'),
        exact_types=fields.get("exact_types", bool, False),
        autograd=fields.get("autograd", bool, True),
        triton_launch=fields.get("triton_launch", bool, False),
        launches_per_call=_launches_per_call(fields),
        eager=_eager(fields),
        schedules=_measured(fields, "schedules", bool, False, None, "true or false"),
        max_tile=_measured(fields, "max_tile", int, 0, lambda v: v >= 0, "a whole number of elements >= 0 (0: any)"),
        traffic=_measured(fields, "traffic", str, "", str.isidentifier,
                          '"outputs", or the name of a function of cases.py'),
        traffic_slack=_measured(fields, "traffic_slack", float, 1.5, lambda v: v >= 1, "a number >= 1"),
    )


def _measured(fields: Fields, key: str, kind: type, default: Any, check: Any, expect: str) -> Any:
    """A rule the Triton interpreter measures: it needs triton_launch = true (docs/KERNELS.md)."""
    value = fields.get(key, kind, default, check, expect) if check is not None else fields.get(key, kind, default)
    if value != default and not fields.get("triton_launch", bool, False):
        raise fields.error(key, "is measured in the kernels' launches: it needs triton_launch = true")
    return value


def _launches_per_call(fields: Fields) -> int:
    launches: int = fields.get("launches_per_call", int, 0, lambda v: v >= 0, "a whole number >= 0 (0: any number)")
    if launches and not fields.get("triton_launch", bool, False):
        raise fields.error("launches_per_call", "counts Triton launches: it needs triton_launch = true")
    return launches


def _eager(fields: Fields) -> EagerRule:
    eager: EagerRule = fields.get("eager", str, "any", lambda v: v in get_args(EagerRule), '"any" or "views"')
    if eager == "views" and not fields.get("triton_launch", bool, False):
        # Without a launch to do it, nothing could compute the output.
        raise fields.error("eager", 'eager = "views" leaves the work to a Triton kernel: it needs triton_launch = true')
    return eager


def _benchmark(fields: Fields) -> Benchmark:
    unit = fields.get("unit", str, "GB/s", lambda v: v in ("GB/s", "TFLOP/s"), '"GB/s" or "TFLOP/s"')
    gate_table = fields.get("gate", dict, None)
    return Benchmark(
        unit=unit,
        make_inputs=fields.get("make_inputs", str, "make_inputs"),
        work=fields.get("work", str, "work"),
        shapes=fields.shapes("shapes"),
        correctness_shapes=fields.shapes("correctness_shapes"),
        gate=_gate(Fields(gate_table, fields.path, fields.text, f"{fields.prefix}gate."), unit)
        if gate_table is not None else None,
    )


def _gate(fields: Fields, unit: str) -> Gate:
    roofline = fields.get("roofline", float, None, lambda v: 0 < v <= 1, "a fraction of the roofline in (0, 1]")
    speedup = fields.get("speedup", float, None, lambda v: v > 0, "a positive factor over the eager reference")
    if (roofline is None) == (speedup is None):
        raise fields.error("roofline", "set exactly one of roofline (a fraction of the copy roofline) and speedup "
                                       "(a factor over the eager reference)")
    if roofline is not None and unit != "GB/s":
        raise fields.error("roofline", f"a roofline gate needs unit = \"GB/s\" (the copy roofline bounds "
                                       f"bandwidth, not {unit}): use speedup")
    return Gate(roofline, speedup)


def _inline_cases(top: Fields, cases_py: Path) -> tuple[Case, ...]:
    raw = top.get("cases", list, [])
    # cases.py may make the fresh case alone (`fresh(seed)`) beside inline cases, not the cases too.
    generates = "cases" in _defined_functions(cases_py)
    if raw and generates:
        raise top.error("cases", "give cases either inline or by cases() in cases.py, not both")
    if not raw and not generates:
        raise top.error("cases", "is required: add [[cases]] tables or a cases() in cases.py")
    cases = []
    for index, table in enumerate(raw, 1):
        if not isinstance(table, dict):
            raise top.error("cases", f"case {index} must be a table ([[cases]])")
        fields = Fields(table, top.path, top.text, f"cases[{index}].")
        cases.append(Case(
            name=fields.get("name", str, f"case {index}"),
            args=tuple(fields.get("args", list, [])),
            kwargs=dict(fields.get("kwargs", dict, {})),
            hidden=fields.get("hidden", bool, False),
        ))
    return tuple(cases)


def expected_verdict(path: Path) -> str | None:
    """The `# expect: <verdict>` header of a wrong/ solution."""
    for line in path.read_text(encoding="utf-8").splitlines()[:10]:
        match = re.match(r"#\s*expect:\s*(\w+)", line)
        if match:
            return match.group(1)
    return None


def _defined_functions(path: Path) -> set[str]:
    """The functions a module file defines at its top level, read without running it (an absent or broken
    file defines none: loading it says why)."""
    try:
        return pysource.top_level_functions(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
