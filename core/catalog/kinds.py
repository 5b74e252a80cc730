"""Problem kinds, the catalogue's side, dispatched from one table: how each kind's problems are found
and what files they have (core/grading/kinds.py is the grading side: how their cases run).

native    a folder: problem.toml, reference.py, cases inline or from cases.py, wrong/. Graded case
          by case against reference outputs computed once per problem version (core/grading/runner.py);
          stateful when [grading] state names arguments whose state after the call is graded, and
          with a benchmark when it has a [benchmark] table (core/bench/benchmark.py).
codestar  a codestar judge's JSON file, whose test_code drives the solution (core/grading/codestar.py).
kernelbench  a KernelBench file (`class Model`, `get_inputs()`, `get_init_inputs()`), loaded unchanged; the
          solution defines `ModelNew`, graded on seeded trials (core/grading/kernelbench.py).

A new kind is the business of this module (a source type for the fields only its problems have, a
class with the table's methods, its entry in KINDS), of its loader in core/catalog/loading.py
(LOADERS) and of its case driver in core/grading/kinds.py. Nothing else dispatches on the kind.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Protocol

from infrakata.core import pysource
from infrakata.core.catalog.problem import Case, Problem


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


@dataclass(frozen=True)
class CodestarSource:
    """What only a codestar problem has: its JSON file, and the test_code that drives a solution."""

    path: Path
    test_code: str
    kind: ClassVar[str] = "codestar"

    @property
    def folder(self) -> Path:
        return self.path.parent


@dataclass(frozen=True)
class KernelBenchSource:
    """What only a KernelBench problem has: its one Python file, which defines the reference `Model` and
    the makers of its inputs, `get_inputs()` and `get_init_inputs()`."""

    path: Path
    # How its outputs' tolerance is chosen (core/grading/kernelbench.py tolerance_of): "precision" (KernelBench's
    # since v0.2: by the precision of the trial's inputs) or "v0.1" (1e-2 whatever the precision).
    tolerance: str = "precision"
    kind: ClassVar[str] = "kernelbench"

    @property
    def folder(self) -> Path:
        return self.path.parent


@dataclass(frozen=True)
class LeetGpuSource:
    """What only a LeetGPU challenge has, read in place from a user's clone of the public set: its folder
    (challenge.py, challenge.html, starter/) and the set's base class (challenges/core/challenge_base.py)."""

    path: Path  # the challenge's folder
    base: Path
    kind: ClassVar[str] = "leetgpu"

    @property
    def folder(self) -> Path:
        return self.path


def defined_functions(path: Path) -> set[str]:
    """The functions a module defines at its top level, read without running it (an absent or broken
    file defines none: loading it says why)."""
    try:
        tree = pysource.tree(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return set()
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


class ProblemKind(Protocol):
    name: str
    looks_like: str  # for "not a problem" messages
    vocabulary_tags: bool  # whether its tags must come from the catalogue's vocabulary (problems/tags.toml)

    def defines(self, path: Path) -> bool:
        """Whether `path` is one problem of this kind."""

    def problems_in(self, folder: Path) -> list[Path]:
        """The problems of this kind directly in a folder."""

    def trusted_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        """(module name, file name, source) of problem code a worker loads before the solution (code that
        makes the inputs there); sent as source, since a worker may not read the problem's folder."""

    def importable_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        """The same, for problem code a worker loads at its first import (to unpickle inputs of its classes)."""

    def problem_code(self, problem: Problem) -> tuple[str, ...]:
        """The sources of the problem's own code, besides its trusted modules, that makes what reaches a
        solution (the calls that drive it) and the expected outputs: with the trusted modules, what decides
        whether a worker needs torch (calls.solution_spec)."""

    def reference_filename(self, problem: Problem) -> str:
        ...

    def reference_as_solution(self, problem: Problem) -> str:
        """The reference, written as a learner's solution would be (`kata check-problems` grades it so)."""

    def wrong_solutions(self, problem: Problem) -> list[Path]:
        """Solutions the grader must reject with the verdict their header states."""

    def simulation(self, problem: Problem) -> Path | None:
        """A second, independent reference (the system simulated step by step) that must agree with the
        first on every case, or None."""

    def model_solution(self, problem: Problem) -> Path | None:
        """A solution within the kata's rules, graded as a learner's, where the reference itself breaks
        them (it calls what the kata forbids, or exceeds its memory cap); None: the reference is one."""

    def missing_statement(self, problem: Problem) -> str | None:
        """What is missing from the problem's statements (English and Chinese), or None."""

    def generates_cases(self, problem: Problem) -> bool:
        """Whether trusted code makes the cases' inputs (then `kata check-problems` checks they repeat)."""

    def has_fresh_cases(self, problem: Problem) -> bool:
        """Whether the problem makes a fresh hidden case at every grading (cases.py `fresh(seed)`)."""

    def without_benchmark(self, problem: Problem) -> str:
        """Why `kata bench` does not apply to a problem of this kind that has no benchmark, and what to do."""


class Native:
    name = "native"
    looks_like = "a folder with problem.toml"
    vocabulary_tags = True

    def defines(self, path: Path) -> bool:
        return (path / "problem.toml").is_file() or path.name == "problem.toml"

    def problems_in(self, folder: Path) -> list[Path]:
        return [p for p in sorted(folder.iterdir()) if (p / "problem.toml").is_file()] if folder.is_dir() else []

    def trusted_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        return ()

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
        return "fresh" in defined_functions(problem.folder / "cases.py")

    def without_benchmark(self, problem: Problem) -> str:
        return f"no [benchmark] table in {problem.folder / 'problem.toml'} (problems/FORMAT.md says how to add one)"


class Codestar:
    name = "codestar"
    looks_like = "a codestar .json file"
    vocabulary_tags = False  # the judge's own tags, loaded unchanged

    def defines(self, path: Path) -> bool:
        return path.suffix == ".json" and not path.is_dir()

    def problems_in(self, folder: Path) -> list[Path]:
        return sorted(folder.glob("*.json")) if folder.is_dir() else []

    def trusted_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        return ()

    def importable_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        return ()

    def problem_code(self, problem: Problem) -> tuple[str, ...]:
        assert isinstance(problem.source, CodestarSource)
        return problem.reference_source, problem.source.test_code

    def reference_filename(self, problem: Problem) -> str:
        return f"{problem.source_path}:reference_code"

    def reference_as_solution(self, problem: Problem) -> str:
        return problem.reference_source

    def wrong_solutions(self, problem: Problem) -> list[Path]:
        return []

    def simulation(self, problem: Problem) -> Path | None:
        return None

    def model_solution(self, problem: Problem) -> Path | None:
        return None

    def missing_statement(self, problem: Problem) -> str | None:
        return None if problem.statement.strip() else "no statement: description_md is empty"

    def generates_cases(self, problem: Problem) -> bool:
        return False  # test_code makes them as it runs

    def has_fresh_cases(self, problem: Problem) -> bool:
        return False  # its format has none: test_code's cases are all it runs

    def without_benchmark(self, problem: Problem) -> str:
        return "a codestar problem is graded on its test_code only; its format has no benchmark"


# What marks a Python file as a KernelBench problem (any one of its three names), read as text so that a
# file that does not parse, or lacks one of them, is still taken for one and its loading says what is wrong.
_KERNELBENCH_MARK = re.compile(r"^(class\s+Model\b|def\s+get_(init_)?inputs\b)", re.M)


class KernelBench:
    name = "kernelbench"
    looks_like = "a KernelBench .py file (class Model, get_inputs, get_init_inputs)"
    vocabulary_tags = False  # KernelBench has no tags; its level is one

    def defines(self, path: Path) -> bool:
        if path.suffix != ".py" or not path.is_file():
            return False
        try:
            with path.open(encoding="utf-8", errors="replace") as file:
                return _KERNELBENCH_MARK.search(file.read(1 << 20)) is not None
        except OSError:
            return False

    def problems_in(self, folder: Path) -> list[Path]:
        return [p for p in sorted(folder.glob("*.py")) if self.defines(p)] if folder.is_dir() else []

    def trusted_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        # The reference's worker makes a trial's inputs itself, with the file's get_inputs() (so does a solution's
        # on CUDA; on the CPU the grader makes them in memory it shares with the solution's worker).
        return ((problem.module_name("kernelbench"), str(problem.source_path), problem.reference_source),)

    def importable_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        return ()

    def problem_code(self, problem: Problem) -> tuple[str, ...]:
        return ()  # the file is its trusted module

    def reference_filename(self, problem: Problem) -> str:
        return str(problem.source_path)

    def reference_as_solution(self, problem: Problem) -> str:
        return f"{problem.reference_source.rstrip()}\n\n\nModelNew = Model\n"  # the solution's class is ModelNew

    def wrong_solutions(self, problem: Problem) -> list[Path]:
        return []

    def simulation(self, problem: Problem) -> Path | None:
        return None

    def model_solution(self, problem: Problem) -> Path | None:
        return None

    def missing_statement(self, problem: Problem) -> str | None:
        return None  # the statement is the reference's code, which the loader checked

    def generates_cases(self, problem: Problem) -> bool:
        return False  # get_inputs() makes each trial's inputs from the seed the grader gives it

    def has_fresh_cases(self, problem: Problem) -> bool:
        return True  # a last trial on a seed drawn at every grading

    def without_benchmark(self, problem: Problem) -> str:
        return ""  # every KernelBench problem has one: its Model is the baseline


LEETGPU_BASE = Path("core") / "challenge_base.py"  # in the set's challenges/ folder


def leetgpu_base(challenge: Path) -> Path | None:
    """The base class file of the set a challenge folder (challenges/<level>/<name>/) belongs to, or None."""
    base = challenge.parent.parent / LEETGPU_BASE
    return base if base.is_file() else None


class LeetGpu:
    name = "leetgpu"
    looks_like = "a LeetGPU challenge folder (challenge.py, challenge.html, starter/) of a clone of the public set"
    vocabulary_tags = False  # the set's own: its level

    def defines(self, path: Path) -> bool:
        return path.is_dir() and (path / "challenge.py").is_file() and leetgpu_base(path) is not None

    def problems_in(self, folder: Path) -> list[Path]:
        """A clone (its challenges/), the challenges/ folder itself, or one level's folder (easy/)."""
        if not folder.is_dir():
            return []
        for challenges in (folder / "challenges", folder):
            if (challenges / LEETGPU_BASE).is_file():
                return [p.parent for p in sorted(challenges.glob("*/*/challenge.py")) if self.defines(p.parent)]
        return [p.parent for p in sorted(folder.glob("*/challenge.py")) if self.defines(p.parent)]

    def trusted_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        return ()

    def importable_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        return ()

    def problem_code(self, problem: Problem) -> tuple[str, ...]:
        return (problem.reference_source,)

    def reference_filename(self, problem: Problem) -> str:
        return str(problem.source_path / "challenge.py")

    def reference_as_solution(self, problem: Problem) -> str:
        return problem.reference_source  # it defines `solve`, the challenge's reference_impl

    def wrong_solutions(self, problem: Problem) -> list[Path]:
        return []

    def simulation(self, problem: Problem) -> Path | None:
        return None

    def model_solution(self, problem: Problem) -> Path | None:
        return None

    def missing_statement(self, problem: Problem) -> str | None:
        return None if problem.statement.strip() else "no statement: challenge.html is empty"

    def generates_cases(self, problem: Problem) -> bool:
        return True  # generate_example_test and generate_functional_test make them

    def has_fresh_cases(self, problem: Problem) -> bool:
        return True  # its functional tests drawn again (core/grading/leetgpu.py fresh)

    def without_benchmark(self, problem: Problem) -> str:
        return ("kata bench does not time LeetGPU challenges yet: its performance test (generate_performance_test "
                "in challenge.py) is timed by LeetGPU's own runner (docs/LEETGPU.md)")


KINDS: dict[str, ProblemKind] = {kind.name: kind for kind in (Native(), Codestar(), KernelBench(), LeetGpu())}


def kind_of(problem: Problem) -> ProblemKind:
    return KINDS[problem.kind]
