"""Discover and load problems: native folders (problem.toml), codestar JSON files and KernelBench files.

A broken problem becomes a ProblemError naming the file, the field and the line; it never stops
the other problems from loading.
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, get_args

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from infrakata.core import pysource
from infrakata.core.catalog.kinds import (
    KINDS,
    LEETGPU_BASE,
    CodestarSource,
    KernelBenchSource,
    LeetGpuSource,
    NativeSource,
    defined_functions,
    leetgpu_base,
)
from infrakata.core.catalog.problem import Benchmark, Case, EagerRule, EquivalentMutant, Gate, GradingRules, Problem
from infrakata.core.catalog.statement import html_text
from infrakata.core.errors import KataError
from infrakata.core.limits import Limits
from infrakata.core.paths import BUNDLED


@dataclass(frozen=True)
class ProblemError(KataError):
    path: Path
    message: str
    field: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        what = f" field '{self.field}':" if self.field else ""
        return f"{where}:{what} {self.message}"


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
        if problem.kind == "native":
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
    """The problem a path defines, by the first kind that recognises it (core/catalog/kinds.py)."""
    path = path.resolve()
    for kind in KINDS.values():
        if kind.defines(path):
            return LOADERS[kind.name](path)
    raise ProblemError(path, "not a problem: expected " + " or ".join(k.looks_like for k in KINDS.values()))


def _line_of(text: str, key: str) -> int | None:
    """The line where a TOML key or JSON field is written, for error messages."""
    pattern = re.compile(rf'^\s*"?{re.escape(key)}"?\s*[=:]', re.M)
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


class _Fields:
    """Typed access to a parsed table; every error names the file, field and line."""

    def __init__(self, data: dict[str, Any], path: Path, text: str, prefix: str = ""):
        self.data, self.path, self.text, self.prefix = data, path, text, prefix

    def error(self, key: str, message: str) -> ProblemError:
        return ProblemError(self.path, message, self.prefix + key, _line_of(self.text, key))

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...,
            check: Callable[[Any], bool] | None = None, expect: str = "") -> Any:
        if key not in self.data:
            if default is ...:
                raise self.error(key, "is required")
            return default
        value = self.data[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or isinstance(value, bool) and kind in (int, float):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.error(key, f"must be {expect or names}, got {type(value).__name__} {value!r}")
        if check is not None and not check(value):
            raise self.error(key, f"must be {expect}, got {value!r}")
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        values = self.get(key, list, [])
        if not all(isinstance(v, str) for v in values):
            raise self.error(key, "must be a list of strings")
        return tuple(values)

    def shapes(self, key: str) -> tuple[tuple[int, ...], ...]:
        values = self.get(key, list, [])
        ok = all(isinstance(s, list) and s and all(isinstance(d, int) and d > 0 for d in s) for s in values)
        if not ok:
            raise self.error(key, "must be a list of shapes, e.g. [[1024], [7, 3]]")
        return tuple(tuple(s) for s in values)


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
    top = _Fields(data, toml_path, text)
    slug = top.get("slug", str, check=lambda s: re.fullmatch(r"[a-z0-9][a-z0-9-]*", s) is not None,
                   expect="lowercase letters, digits and hyphens")
    if slug != folder.name:
        raise top.error("slug", f"'{slug}' must equal the folder name '{folder.name}'")
    # Scalar fields first, so a typo there is reported before missing files or cases.
    metadata = _shared_fields(top, slug)
    metadata["title_zh"] = top.get("title_zh", str, "")
    grading = _grading(_Fields(top.get("grading", dict, {}), toml_path, text, "grading."))
    benchmark_table = top.get("benchmark", dict, None)
    benchmark = _benchmark(_Fields(benchmark_table, toml_path, text, "benchmark.")) if benchmark_table else None

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
        equivalent_mutants=_equivalent_mutants(_Fields(top.get("mutants", dict, {}), toml_path, text, "mutants.")),
        builds_on=top.strings("builds_on"),
        **_learning_fields(top, folder),
    )


def _model_solution(top: _Fields, folder: Path) -> Path | None:
    """A solution within the kata's rules, graded by check-problems as a learner's: `model_solution`
    (a path from the problem's folder: a kernel kata names our kernel in kernels/), else solution.py."""
    named = top.get("model_solution", str, None)
    path = folder / (named or "solution.py")
    if named is not None and not path.is_file():
        raise top.error("model_solution", f"names {path}, which is not a file")
    return path if path.is_file() else None


def _filled(text: str) -> bool:
    return bool(text.strip())


def _equivalent_mutants(fields: _Fields) -> tuple[EquivalentMutant, ...]:
    """`[[mutants.equivalent]]`: mutants of the reference no input tells apart, each with its reason."""
    declared = []
    for index, table in enumerate(fields.get("equivalent", list, []), 1):
        if not isinstance(table, dict):
            raise fields.error("equivalent", f"entry {index} must be a table ([[mutants.equivalent]])")
        entry = _Fields(table, fields.path, fields.text, f"{fields.prefix}equivalent[{index}].")
        mutant = entry.get("mutant", str, check=_filled, expect="the mutant's label as check-problems prints it")
        reason = entry.get("reason", str, check=_filled, expect="why no input can tell it apart")
        where = fields.text.find(mutant)
        declared.append(EquivalentMutant(mutant, reason, fields.text.count("\n", 0, where) + 1 if where >= 0 else None))
    return tuple(declared)


def _learning_fields(top: _Fields, folder: Path) -> dict[str, Any]:
    """Hints (`hints`, `hints_zh`) and the editorial (EDITORIAL.md): what a learner unlocks."""
    editorial = folder / "EDITORIAL.md"
    return dict(hints=top.strings("hints"), hints_zh=top.strings("hints_zh"),
                editorial=editorial.read_text(encoding="utf-8") if editorial.is_file() else "")


def _shared_fields(fields: _Fields, slug: str) -> dict[str, Any]:
    """The fields both formats have (codestar's names)."""
    return dict(
        slug=slug,
        title=fields.get("title", str),
        entry_point=fields.get("entry_point", str, check=str.isidentifier, expect="a Python identifier"),
        difficulty=fields.get("difficulty", str, ""),
        category=fields.get("category", str, ""),
        tags=fields.strings("tags"),
        limits=Limits(
            time_s=fields.get("time_limit", float, Limits.time_s, lambda v: v > 0, "a positive number of seconds"),
            memory_mb=fields.get("memory_limit_mb", int, Limits.memory_mb, lambda v: v > 0, "a positive number of MiB"),
            gpu_memory_mb=fields.get("gpu_memory_limit_mb", int, Limits.gpu_memory_mb, lambda v: v > 0,
                                     "a positive number of MiB"),
            compile_s=fields.get("compile_allowance", float, None, lambda v: v >= 0, "a number of seconds >= 0"),
        ),
        atol=fields.get("atol", float, 1e-4, lambda v: v >= 0, "a number >= 0"),
        rtol=fields.get("rtol", float, 1e-4, lambda v: v >= 0, "a number >= 0"),
        forbidden_modules=fields.strings("forbidden_modules"),
        forbidden_calls=fields.strings("forbidden_calls"),
    )


def _grading(fields: _Fields) -> GradingRules:
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


def _measured(fields: _Fields, key: str, kind: type, default: Any, check: Any, expect: str) -> Any:
    """A rule the Triton interpreter measures: it needs triton_launch = true (docs/KERNELS.md)."""
    value = fields.get(key, kind, default, check, expect) if check is not None else fields.get(key, kind, default)
    if value != default and not fields.get("triton_launch", bool, False):
        raise fields.error(key, "is measured in the kernels' launches: it needs triton_launch = true")
    return value


def _launches_per_call(fields: _Fields) -> int:
    launches: int = fields.get("launches_per_call", int, 0, lambda v: v >= 0, "a whole number >= 0 (0: any number)")
    if launches and not fields.get("triton_launch", bool, False):
        raise fields.error("launches_per_call", "counts Triton launches: it needs triton_launch = true")
    return launches


def _eager(fields: _Fields) -> EagerRule:
    eager: EagerRule = fields.get("eager", str, "any", lambda v: v in get_args(EagerRule), '"any" or "views"')
    if eager == "views" and not fields.get("triton_launch", bool, False):
        # Without a launch to do it, nothing could compute the output.
        raise fields.error("eager", 'eager = "views" leaves the work to a Triton kernel: it needs triton_launch = true')
    return eager


def _benchmark(fields: _Fields) -> Benchmark:
    unit = fields.get("unit", str, "GB/s", lambda v: v in ("GB/s", "TFLOP/s"), '"GB/s" or "TFLOP/s"')
    gate_table = fields.get("gate", dict, None)
    return Benchmark(
        unit=unit,
        make_inputs=fields.get("make_inputs", str, "make_inputs"),
        work=fields.get("work", str, "work"),
        shapes=fields.shapes("shapes"),
        correctness_shapes=fields.shapes("correctness_shapes"),
        gate=_gate(_Fields(gate_table, fields.path, fields.text, f"{fields.prefix}gate."), unit)
        if gate_table is not None else None,
    )


def _gate(fields: _Fields, unit: str) -> Gate:
    roofline = fields.get("roofline", float, None, lambda v: 0 < v <= 1, "a fraction of the roofline in (0, 1]")
    speedup = fields.get("speedup", float, None, lambda v: v > 0, "a positive factor over the eager reference")
    if (roofline is None) == (speedup is None):
        raise fields.error("roofline", "set exactly one of roofline (a fraction of the copy roofline) and speedup "
                                       "(a factor over the eager reference)")
    if roofline is not None and unit != "GB/s":
        raise fields.error("roofline", f"a roofline gate needs unit = \"GB/s\" (the copy roofline bounds "
                                       f"bandwidth, not {unit}): use speedup")
    return Gate(roofline, speedup)


def _inline_cases(top: _Fields, cases_py: Path) -> tuple[Case, ...]:
    raw = top.get("cases", list, [])
    # cases.py may make the fresh case alone (`fresh(seed)`) beside inline cases, not the cases too.
    generates = "cases" in defined_functions(cases_py)
    if raw and generates:
        raise top.error("cases", "give cases either inline or by cases() in cases.py, not both")
    if not raw and not generates:
        raise top.error("cases", "is required: add [[cases]] tables or a cases() in cases.py")
    cases = []
    for index, table in enumerate(raw, 1):
        if not isinstance(table, dict):
            raise top.error("cases", f"case {index} must be a table ([[cases]])")
        fields = _Fields(table, top.path, top.text, f"cases[{index}].")
        cases.append(Case(
            name=fields.get("name", str, f"case {index}"),
            args=tuple(fields.get("args", list, [])),
            kwargs=dict(fields.get("kwargs", dict, {})),
            hidden=fields.get("hidden", bool, False),
        ))
    return tuple(cases)


CODESTAR_REQUIRED = ("slug", "title", "entry_point", "reference_code", "test_code")


def load_codestar(path: Path) -> Problem:
    """A problem in the codestar judge's JSON schema, loaded unchanged."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
    except FileNotFoundError:
        raise ProblemError(path, "no such file") from None
    except json.JSONDecodeError as error:
        raise ProblemError(path, f"invalid JSON: {error.msg}", None, error.lineno) from None
    if not isinstance(data, dict):
        raise ProblemError(path, "a codestar problem is a JSON object", None, 1)
    fields = _Fields(data, path, text)
    for key in CODESTAR_REQUIRED:
        fields.get(key, str)
    try:
        compile(data["test_code"], f"{path}:test_code", "exec")
        compile(data["reference_code"], f"{path}:reference_code", "exec")
    except SyntaxError as error:
        field = "test_code" if "test_code" in (error.filename or "") else "reference_code"
        raise ProblemError(path, f"does not compile: {error.msg} (line {error.lineno} of the field)", field,
                           _line_of(text, field)) from None
    return Problem(
        **_shared_fields(fields, fields.get("slug", str)),
        source=CodestarSource(path, data["test_code"]),
        grading=GradingRules(device="cuda" if _is_kernel_problem(data) else "cpu"),
        statement=fields.get("description_md", str, ""),
        reference_source=data["reference_code"],
        starter=fields.get("starter_code", str, ""),
        editorial=fields.get("editorial_md", str, ""),
    )


# KernelBench's rules (its eval.py): both models are built after seeding with 42, the trials' inputs each
# after a seed of its own; outputs agree within atol = rtol = its tolerance for the precision graded
# (get_tolerance_for_precision: fp32 1e-4, fp16 and bf16 1e-2). KernelBench v0 and v0.1 took 1e-2 for fp32 too:
# INFRAKATA_KERNELBENCH_TOLERANCE=v0.1 grades so, to reproduce results of then.
KERNELBENCH_TOLERANCES = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}
KERNELBENCH_V0_1_TOLERANCE = 1e-2
KERNELBENCH_TOLERANCE_VARIABLE = "INFRAKATA_KERNELBENCH_TOLERANCE"
KERNELBENCH_TOLERANCE_SCHEMES = ("precision", "v0.1")
# A trial's limits: KernelBench times nothing on the CPU, and a kernel compiled with load_inline at import
# takes tens of seconds (Triton's first launch on CUDA some), hence the allowance.
CPP_EXTENSION = "torch.utils.cpp_extension"
KERNELBENCH_LIMITS = Limits(time_s=30.0, memory_mb=4096, gpu_memory_mb=32768, compile_s=180.0)
_KERNELBENCH_NEEDS = ("class Model(nn.Module) with a forward method, get_inputs() and get_init_inputs() at the "
                      "top level")


def load_kernelbench(path: Path) -> Problem:
    """A KernelBench problem file, loaded unchanged: `Model` is the reference, the solution's `ModelNew`."""
    try:
        text = path.read_text(encoding="utf-8")
        tree = pysource.parse(text, str(path))
    except FileNotFoundError:
        raise ProblemError(path, "no such file") from None
    except UnicodeDecodeError as error:
        raise ProblemError(path, f"is not UTF-8 text ({error.reason})") from None
    except SyntaxError as error:
        raise ProblemError(path, f"does not parse as Python: {error.msg}; a KernelBench problem is a module with "
                                 f"{_KERNELBENCH_NEEDS}", None, error.lineno) from None
    top = {node.name: node for node in tree.body
           if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))}
    missing = [name for name in ("Model", "get_inputs", "get_init_inputs") if name not in top]
    if missing:
        raise ProblemError(path, f"defines no {' and no '.join(missing)} at its top level; a KernelBench problem "
                                 f"has {_KERNELBENCH_NEEDS}", None, 1)
    model = top["Model"]
    if not isinstance(model, ast.ClassDef) or not any(
            isinstance(node, ast.FunctionDef) and node.name == "forward" for node in model.body):
        raise ProblemError(path, f"its Model must be a class with a forward method ({_KERNELBENCH_NEEDS})", None,
                           model.lineno)
    for name in ("get_inputs", "get_init_inputs"):
        maker = top[name]
        if not isinstance(maker, ast.FunctionDef) or maker.args.args or maker.args.posonlyargs:
            raise ProblemError(path, f"{name} must be a function of no arguments, as in KernelBench", None,
                               maker.lineno)
    scheme = os.environ.get(KERNELBENCH_TOLERANCE_VARIABLE) or "precision"
    if scheme not in KERNELBENCH_TOLERANCE_SCHEMES:
        raise ProblemError(path, f"{KERNELBENCH_TOLERANCE_VARIABLE}={scheme!r} is not a tolerance scheme: set it to "
                                 f"{' or '.join(KERNELBENCH_TOLERANCE_SCHEMES)} (v0.1: 1e-2 for fp32 too, as "
                                 f"KernelBench v0.1 graded), or unset it")
    tolerance = KERNELBENCH_V0_1_TOLERANCE if scheme == "v0.1" else KERNELBENCH_TOLERANCES["float32"]
    level = path.parent.name if re.fullmatch(r"level\d+", path.parent.name) else ""
    slug = "-".join(part for part in (level, re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")) if part)
    title = path.stem.replace("_", " ").strip()
    docstring = ast.get_docstring(model) or ""
    return Problem(
        slug=slug or "kernelbench", title=f"{title} (KernelBench {level})" if level else f"{title} (KernelBench)",
        entry_point="ModelNew", source=KernelBenchSource(path, scheme), category="Kernels", tags=("kernelbench",),
        limits=KERNELBENCH_LIMITS, atol=tolerance, rtol=tolerance,
        grading=GradingRules(device="cuda"),
        # No compiler inside the sandbox: a C++/CUDA extension is refused, saying why (tripwires.WHY_REFUSED).
        forbidden_modules=(CPP_EXTENSION,),
        forbidden_calls=(f"{CPP_EXTENSION}.load_inline", f"{CPP_EXTENSION}.load"),
        statement=_kernelbench_statement(path, text, docstring, scheme), reference_source=text,
        starter=_kernelbench_starter(text, model),
    )


def _kernelbench_statement(path: Path, text: str, docstring: str, scheme: str) -> str:
    within = f"atol = rtol = {KERNELBENCH_V0_1_TOLERANCE:.0e}, as KernelBench v0.1 graded" if scheme == "v0.1" else \
        (f"atol = rtol = {KERNELBENCH_TOLERANCES['float32']:.0e} where the inputs are fp32, "
         f"{KERNELBENCH_TOLERANCES['float16']:.0e} where they are fp16 or bf16, as KernelBench grades")
    return (f"# {path.stem}\n\n{docstring}\n\nWrite `class ModelNew(nn.Module)`: the same constructor and "
            f"`forward` as `Model` below, computing the same outputs (within {within}) with kernels of your own "
            f"(Triton, or C++/CUDA through "
            f"`torch.utils.cpp_extension.load_inline`), faster. Both models are built after the same seed, so their "
            f"weights are equal; each trial draws its inputs with `get_inputs()` after a seed of its own.\n\n"
            f"```python\n{text.rstrip()}\n```\n")


def _kernelbench_starter(text: str, model: ast.ClassDef) -> str:
    """The problem's file with Model renamed ModelNew and its forward's body replaced by `raise
    NotImplementedError`: the constructor and signature to keep, and no answer."""
    lines = text.splitlines()
    forward = next(node for node in model.body if isinstance(node, ast.FunctionDef) and node.name == "forward")
    body = forward.body
    first = body[1] if len(body) > 1 and ast.get_docstring(forward) is not None else body[0]
    indent = " " * first.col_offset
    end = forward.end_lineno or first.lineno
    lines[first.lineno - 1:end] = [f"{indent}raise NotImplementedError  # your kernel here"]
    end_of_class = (model.end_lineno or model.lineno) - (end - first.lineno)
    for index in range(model.lineno - 1, end_of_class):
        lines[index] = re.sub(r"\bclass\s+Model\b", "class ModelNew", lines[index])
        lines[index] = re.sub(r"\bsuper\(\s*Model\s*,", "super(ModelNew,", lines[index])
    return "\n".join(lines) + "\n"


# A LeetGPU challenge, on the CPU: through the Triton interpreter (a few million elements a second) and
# torch. The limits are the interpreter's; the set's own performance test is not a case (docs/LEETGPU.md).
LEETGPU_LIMITS = Limits(time_s=60.0, memory_mb=4096, gpu_memory_mb=16384, compile_s=120.0)
LEETGPU_PREFIX = "leetgpu-"
LEETGPU_CPU_ELEMENTS = 1 << 22  # a test's tensors, in all, graded without CUDA (core/grading/leetgpu.py)
# The challenge's own import of its base class: the base is put above it, as the clone's core/ package is.
_BASE_IMPORT = re.compile(r"^from core\.challenge_base import [^\n]+\n", re.M)
_LEETGPU_NEEDS = "class Challenge(ChallengeBase) with name, atol, rtol, reference_impl and get_solve_signature"


def load_leetgpu(path: Path) -> Problem:
    """A LeetGPU challenge folder of a user's clone, loaded unchanged and read without running it: the reference
    is its Challenge's reference_impl (with the clone's base class), the cases its example and functional tests
    (core/grading/leetgpu.py), the outputs what get_solve_signature marks "out" or "inout", the statement its
    challenge.html, the starter its Triton one (else its PyTorch one)."""
    challenge = path / "challenge.py"
    base = leetgpu_base(path)
    try:
        text = challenge.read_text(encoding="utf-8")
        tree = pysource.parse(text, str(challenge))
        base_text = base.read_text(encoding="utf-8") if base is not None else ""
    except (OSError, UnicodeDecodeError) as error:
        raise ProblemError(challenge, f"cannot be read ({error})") from None
    except SyntaxError as error:
        raise ProblemError(challenge, f"does not parse as Python: {error.msg}", None, error.lineno) from None
    cls = next((node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Challenge"), None)
    if cls is None or base is None:
        raise ProblemError(challenge, f"is no LeetGPU challenge: it needs {_LEETGPU_NEEDS}, and the set's "
                                      f"challenges/{LEETGPU_BASE}", None, 1)
    constants: dict[str, Any] = {target.id: node.value.value for node in cls.body if isinstance(node, ast.Assign)
                 for target in node.targets if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant)}
    directions = _solve_signature(cls, challenge)
    for key in ("name", "atol", "rtol"):
        if key not in constants:
            raise ProblemError(challenge, f"class Challenge sets no {key} as a constant ({_LEETGPU_NEEDS})", None,
                               cls.lineno)
    level = path.parent.name
    starters = [path / "starter" / f"starter.{language}.py" for language in ("triton", "pytorch")]
    starter = next((p.read_text(encoding="utf-8") for p in starters if p.is_file()), "")
    statement = path / "challenge.html"
    reference = (f"# The LeetGPU challenge {path.name}, read from {path}: the set's base class\n"
                 f"# ({base}), then the challenge, then the entry point graded against, its reference_impl.\n"
                 f"{base_text.rstrip()}\n\n\n{_BASE_IMPORT.sub('', text).rstrip()}\n\n\n"
                 f"solve = Challenge(device=\"cpu\").reference_impl\n")
    return Problem(
        slug=LEETGPU_PREFIX + re.sub(r"[^a-z0-9]+", "-", path.name.lower()).strip("-"),
        title=str(constants["name"]), entry_point="solve", source=LeetGpuSource(path, base),
        difficulty=level.capitalize() if level in ("easy", "medium", "hard") else "", category="LeetGPU",
        tags=("leetgpu", level), limits=LEETGPU_LIMITS, atol=float(constants["atol"]), rtol=float(constants["rtol"]),
        grading=GradingRules(state=tuple(name for name, way in directions if way in ("out", "inout")),
                             device="cuda", graded_return=False),
        statement=(html_text(statement.read_text(encoding="utf-8")) if statement.is_file() else "")
        + _leetgpu_note(), reference_source=reference, starter=starter,
    )


def _solve_signature(cls: ast.ClassDef, challenge: Path) -> list[tuple[str, str]]:
    """get_solve_signature's (parameter, "in" | "out" | "inout"), read from the dict it returns."""
    method = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "get_solve_signature"), None)
    returned = next((n.value for n in ast.walk(method) if isinstance(n, ast.Return)), None) if method else None
    if not isinstance(returned, ast.Dict):
        raise ProblemError(challenge, f"get_solve_signature returns no dict literal ({_LEETGPU_NEEDS})", None,
                           method.lineno if method else cls.lineno)
    found = []
    for key, value in zip(returned.keys, returned.values, strict=True):
        way = value.elts[1] if isinstance(value, ast.Tuple) and len(value.elts) == 2 else None
        if not (isinstance(key, ast.Constant) and isinstance(way, ast.Constant)
                and way.value in ("in", "out", "inout")):
            raise ProblemError(challenge, "get_solve_signature: each entry is \"name\": (ctype, \"in\" | \"out\" | "
                                          "\"inout\")", None, getattr(value, "lineno", returned.lineno))
        found.append((str(key.value), str(way.value)))
    return found


def _leetgpu_note() -> str:
    return ("\n## On this machine\n\nGraded by kata against the challenge's own reference_impl, on its example and "
            "functional tests, within its atol and rtol: each output argument (\"out\" in get_solve_signature) is "
            "graded in place, and every other must come back unchanged; what solve returns is not read, as LeetGPU's "
            "runner does not read it. Without CUDA, Triton solutions run through "
            "Triton's interpreter and PyTorch ones on the CPU, and a test whose tensors hold more than "
            f"{LEETGPU_CPU_ELEMENTS:,} elements in all is left out (`kata run` names it), unless every test is: then "
            "the smallest is kept. See docs/LEETGPU.md. "
            "CUDA C++, CuTe and Mojo solutions run on LeetGPU's own runner, not here.\n")


def _load_native_path(path: Path) -> Problem:
    return load_native(path.parent if path.name == "problem.toml" else path)


LOADERS: dict[str, Callable[[Path], Problem]] = {"native": _load_native_path, "codestar": load_codestar,
                                                 "kernelbench": load_kernelbench, "leetgpu": load_leetgpu}


def _is_kernel_problem(data: dict[str, Any]) -> bool:
    """codestar has no device field: a problem written in Triton, or tagged so, is graded on the GPU."""
    code = "\n".join(str(data.get(key, "")) for key in ("reference_code", "starter_code"))
    tags = {str(tag).lower() for tag in data.get("tags") or ()}
    return re.search(r"^\s*(import|from)\s+triton\b", code, re.M) is not None or bool(tags & {"triton", "cuda"})


def expected_verdict(path: Path) -> str | None:
    """The `# expect: <verdict>` header of a wrong/ solution."""
    for line in path.read_text(encoding="utf-8").splitlines()[:10]:
        match = re.match(r"#\s*expect:\s*(\w+)", line)
        if match:
            return match.group(1)
    return None

