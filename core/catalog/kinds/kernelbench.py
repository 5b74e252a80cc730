"""KernelBench problems: a KernelBench file (`class Model`, `get_inputs()`, `get_init_inputs()`), loaded
unchanged; the solution defines `ModelNew`, graded on seeded trials (core/grading/kinds/kernelbench.py) and timed
against the Model by `kata bench` (core/bench/kernelbench.py)."""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from infrakata.core import pysource
from infrakata.core.catalog.kinds.base import ProblemKind
from infrakata.core.catalog.problem import GradingRules, Problem, Timing
from infrakata.core.errors import ProblemError
from infrakata.core.limits import Limits


@dataclass(frozen=True)
class KernelBenchSource:
    """What only a KernelBench problem has: its one Python file, which defines the reference `Model` and
    the makers of its inputs, `get_inputs()` and `get_init_inputs()`."""

    path: Path
    # How its outputs' tolerance is chosen (core/grading/kinds/kernelbench.py tolerance_of): "precision" (KernelBench's
    # since v0.2: by the precision of the trial's inputs) or "v0.1" (1e-2 whatever the precision).
    tolerance: str = "precision"
    kind: ClassVar[str] = "kernelbench"

    @property
    def folder(self) -> Path:
        return self.path.parent


# What marks a Python file as a KernelBench problem (any one of its three names), read as text so that a
# file that does not parse, or lacks one of them, is still taken for one and its loading says what is wrong.
_KERNELBENCH_MARK = re.compile(r"^(class\s+Model\b|def\s+get_(init_)?inputs\b)", re.M)


class KernelBench(ProblemKind):
    name = "kernelbench"
    looks_like = "a KernelBench .py file (class Model, get_inputs, get_init_inputs)"
    vocabulary_tags = False  # KernelBench has no tags; its level is one
    renamed_when_taken = True

    def defines(self, path: Path) -> bool:
        if path.suffix != ".py" or not path.is_file():
            return False
        try:
            with path.open(encoding="utf-8", errors="replace") as file:
                return _KERNELBENCH_MARK.search(file.read(1 << 20)) is not None
        except OSError:
            return False

    def load(self, path: Path) -> Problem:
        return load_kernelbench(path)

    def problems_in(self, folder: Path) -> list[Path]:
        return [p for p in sorted(folder.glob("*.py")) if self.defines(p)] if folder.is_dir() else []

    def trusted_modules(self, problem: Problem) -> tuple[tuple[str, str, str], ...]:
        # The reference's worker makes a trial's inputs itself, with the file's get_inputs() (so does a solution's
        # on CUDA; on the CPU the grader makes them in memory it shares with the solution's worker).
        return ((problem.module_name("kernelbench"), str(problem.source_path), problem.reference_source),)

    def problem_code(self, problem: Problem) -> tuple[str, ...]:
        return ()  # the file is its trusted module

    def reference_filename(self, problem: Problem) -> str:
        return str(problem.source_path)

    def reference_as_solution(self, problem: Problem) -> str:
        return f"{problem.reference_source.rstrip()}\n\n\nModelNew = Model\n"  # the solution's class is ModelNew

    def missing_statement(self, problem: Problem) -> str | None:
        return None  # the statement is the reference's code, which the loader checked

    def generates_cases(self, problem: Problem) -> bool:
        return False  # get_inputs() makes each trial's inputs from the seed the grader gives it

    def has_fresh_cases(self, problem: Problem) -> bool:
        return True  # a last trial on a seed drawn at every grading

    def benchmark(self, problem: Problem) -> Timing | None:
        return "model"  # every KernelBench problem has one: its Model is the baseline

    def without_benchmark(self, problem: Problem) -> str:
        return ""  # every KernelBench problem has one: its Model is the baseline


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


