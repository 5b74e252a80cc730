"""LeetGPU challenges, read in place from a user's clone of the public set (docs/LEETGPU.md); their tests are
made and graded in core/grading/kinds/leetgpu.py."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from infrakata.core import pysource
from infrakata.core.catalog.kinds.base import ProblemKind
from infrakata.core.catalog.problem import GradingRules, Problem, Timing
from infrakata.core.catalog.statement import html_text
from infrakata.core.errors import ProblemError
from infrakata.core.limits import Limits


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


LEETGPU_BASE = Path("core") / "challenge_base.py"  # in the set's challenges/ folder


def leetgpu_base(challenge: Path) -> Path | None:
    """The base class file of the set a challenge folder (challenges/<level>/<name>/) belongs to, or None."""
    base = challenge.parent.parent / LEETGPU_BASE
    return base if base.is_file() else None


class LeetGpu(ProblemKind):
    name = "leetgpu"
    looks_like = "a LeetGPU challenge folder (challenge.py, challenge.html, starter/) of a clone of the public set"
    vocabulary_tags = False  # the set's own: its level
    renamed_when_taken = True

    def defines(self, path: Path) -> bool:
        return path.is_dir() and (path / "challenge.py").is_file() and leetgpu_base(path) is not None

    def load(self, path: Path) -> Problem:
        return load_leetgpu(path)

    def problems_in(self, folder: Path) -> list[Path]:
        """A clone (its challenges/), the challenges/ folder itself, or one level's folder (easy/)."""
        if not folder.is_dir():
            return []
        for challenges in (folder / "challenges", folder):
            if (challenges / LEETGPU_BASE).is_file():
                return [p.parent for p in sorted(challenges.glob("*/*/challenge.py")) if self.defines(p.parent)]
        return [p.parent for p in sorted(folder.glob("*/challenge.py")) if self.defines(p.parent)]

    def importable_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        # No grading imports it; a benchmark's workers load it before the solution (a harness's preload makes it a
        # trusted module: calls.solution_spec) and make the performance test with it (core/bench/leetgpu_trials.py).
        return ((problem.module_name("leetgpu"), str(problem.source_path / "challenge.py"), problem.reference_source),)

    def problem_code(self, problem: Problem) -> tuple[str, ...]:
        return ()  # the challenge is its importable module

    def reference_filename(self, problem: Problem) -> str:
        return str(problem.source_path / "challenge.py")

    def reference_as_solution(self, problem: Problem) -> str:
        return problem.reference_source  # it defines `solve`, the challenge's reference_impl

    def missing_statement(self, problem: Problem) -> str | None:
        return None if problem.statement.strip() else "no statement: challenge.html is empty"

    def generates_cases(self, problem: Problem) -> bool:
        return True  # generate_example_test and generate_functional_test make them

    def has_fresh_cases(self, problem: Problem) -> bool:
        return True  # its functional tests drawn again (core/grading/kinds/leetgpu.py fresh)

    def benchmark(self, problem: Problem) -> Timing | None:
        return "challenge"  # its performance test, against its reference_impl (core/bench/leetgpu.py)

    def without_benchmark(self, problem: Problem) -> str:
        return ""  # every challenge has one: its performance test


# A LeetGPU challenge, on the CPU: through the Triton interpreter (a few million elements a second) and
# torch. The limits are the interpreter's; the set's own performance test is not a case: kata bench times it
# (core/bench/leetgpu.py, docs/LEETGPU.md).
LEETGPU_LIMITS = Limits(time_s=60.0, memory_mb=4096, gpu_memory_mb=16384, compile_s=120.0)
LEETGPU_PREFIX = "leetgpu-"
LEETGPU_CPU_ELEMENTS = 1 << 22  # a test's tensors, in all, graded without CUDA (core/grading/kinds/leetgpu.py)
# The challenge's own import of its base class: the base is put above it, as the clone's core/ package is.
_BASE_IMPORT = re.compile(r"^from core\.challenge_base import [^\n]+\n", re.M)
_LEETGPU_NEEDS = "class Challenge(ChallengeBase) with name, atol, rtol, reference_impl and get_solve_signature"


def load_leetgpu(path: Path) -> Problem:
    """A LeetGPU challenge folder of a user's clone, loaded unchanged and read without running it: the reference
    is its Challenge's reference_impl (with the clone's base class), the cases its example and functional tests
    (core/grading/kinds/leetgpu.py), the outputs what get_solve_signature marks "out" or "inout", the statement its
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
            "the smallest is kept. `kata bench` times the performance test against reference_impl on a CUDA GPU "
            "(without one, it checks a performance test within that budget, untimed). See docs/LEETGPU.md. "
            "CUDA C++, CuTe and Mojo solutions run on LeetGPU's own runner, not here.\n")

