"""Typed problems: what a solution is graded against."""

from __future__ import annotations

import functools
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any, ClassVar, Literal, Protocol

from infrakata.core.limits import Limits

ComparisonKind = Literal["allclose", "relative_norm"]  # how outputs are compared ([grading] comparison)
# Where a problem's cases run: "cuda" grades on the GPU where there is one (kernel problems), and on
# the CPU (Triton through its interpreter) where there is none.
Device = Literal["cpu", "cuda"]
# What a kernel kata's call may do in eager torch besides its launches ([grading] eager): "any", or "views":
# allocation and views only, so that the kernel computes the output (core/sandbox/tripwires.py).
EagerRule = Literal["any", "views"]
# How `kata bench` times a problem (its kind says: core/catalog/kinds/): against the reference on a [benchmark]
# table's shapes, or as KernelBench does, against the problem's own eager Model (the speed-up fast_p counts).
Timing = Literal["table", "model", "challenge"]


# The case a problem's cases.py `fresh(seed)` makes anew at every grading: last, and hidden.
FRESH_CASE_NAME = "fresh inputs (new at every grading, hidden)"


@dataclass(frozen=True)
class Case:
    """One inline case: positional and keyword arguments as plain values."""

    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    hidden: bool = False  # its expected values are never shown (a held-out case)


@dataclass(frozen=True)
class GradingRules:
    """A problem's [grading] table: how its outputs are compared, what state is graded, where it runs."""

    comparison: ComparisonKind = "allclose"
    tolerance: float = 4e-5
    mutable: tuple[str, ...] = ()
    state: tuple[str, ...] = ()
    output_names: tuple[str, ...] = ()
    device: Device = "cpu"
    exact_types: bool = False  # outputs must have the reference's types (a statement fixes them)
    # False: what a call returns is not graded, only its `state` (a LeetGPU solve's outputs are its arguments,
    # and LeetGPU's runner never reads what solve returns: a solve that also returns its output is right).
    graded_return: bool = True
    # The technique, enforced in the solution's worker (core/sandbox/tripwires.py):
    autograd: bool = True  # False: every backward pass is refused (a kata that derives gradients by hand)
    triton_launch: bool = False  # True: each call must launch a Triton kernel (kernel katas)
    launches_per_call: int = 0  # with triton_launch: at most this many launches per call (0: any number)
    eager: EagerRule = "any"  # "views": outside its launches, a call only allocates and takes views
    # Measured by the Triton interpreter (core/sandbox/kernel_meter.py), with triton_launch, on the CPU:
    schedules: bool = False  # integer buffers a call computes with torch may be read by its kernels
    max_tile: int = 0  # the most elements one tl.load or tl.store may move (0: any): a kata that teaches streaming
    # The memory traffic of the kata's fused kernels: "outputs" (they write the call's outputs once, and nothing
    # else: no scores, copies or dense buffers through memory), or a function of cases.py (a case's arguments ->
    # the bytes they load and store); "" measures nothing.
    traffic: str = ""
    traffic_slack: float = 1.5  # how many times that figure the kernels may move


@dataclass(frozen=True)
class Gate:
    """The performance a kernel must reach on a GPU to be accepted ([benchmark.gate]): a fraction of the
    device's copy roofline (GB/s problems), or a speedup over the eager reference. At most one is set."""

    roofline: float | None = None  # e.g. 0.5: at least 50% of the copy bandwidth measured in the same run
    speedup: float | None = None  # e.g. 2.0: at least twice the eager reference's figure


@dataclass(frozen=True)
class Benchmark:
    unit: str
    make_inputs: str
    work: str
    shapes: tuple[tuple[int, ...], ...]
    correctness_shapes: tuple[tuple[int, ...], ...]
    gate: Gate | None = None  # None: the figures are reported, and any correct run is accepted


@dataclass(frozen=True)
class EquivalentMutant:
    """A mutant of the reference that no input can tell apart from it (`kata check-problems --mutants`),
    declared in problem.toml's `[[mutants.equivalent]]` with the reason."""

    mutant: str  # its label: "function: change", as check-problems prints it
    reason: str
    line: int | None = None  # where problem.toml declares it


class ProblemSource(Protocol):
    """What only one kind of problem has (each kind's module in core/catalog/kinds/ defines its own)."""

    kind: ClassVar[str]

    @property
    def path(self) -> Path:
        """Where the problem is defined: a folder, a file."""

    @property
    def folder(self) -> Path:
        """The folder its files are in."""


@dataclass(frozen=True)
class Problem:
    """What every kind of problem has; the kind's own fields are on `source` (core/catalog/kinds/ loads each kind,
    core/grading/kinds/ runs it)."""

    slug: str
    title: str
    entry_point: str
    source: ProblemSource
    title_zh: str = ""
    difficulty: str = ""
    category: str = ""
    tags: tuple[str, ...] = ()
    limits: Limits = Limits()
    atol: float = 1e-4
    rtol: float = 1e-4
    forbidden_modules: tuple[str, ...] = ()
    forbidden_calls: tuple[str, ...] = ()
    grading: GradingRules = GradingRules()
    benchmark: Benchmark | None = None
    statement: str = ""
    statement_path: Path | None = None
    reference_source: str = ""
    starter: str = ""
    hints: tuple[str, ...] = ()  # tiered, English; shown one at a time (`kata hint`)
    hints_zh: tuple[str, ...] = ()
    editorial: str = ""  # EDITORIAL.md, or codestar's editorial_md: shown once the kata is accepted
    equivalent_mutants: tuple[EquivalentMutant, ...] = ()
    builds_on: tuple[str, ...] = ()  # katas this one continues: earlier in course order, named in its statement

    @property
    def time_limit(self) -> float:
        return self.limits.time_s

    @property
    def memory_limit_mb(self) -> int:
        return self.limits.memory_mb

    @property
    def kind(self) -> str:
        return self.source.kind

    @property
    def source_path(self) -> Path:
        """Where the problem is defined: a native problem's folder, a codestar problem's JSON file."""
        return self.source.path

    @property
    def folder(self) -> Path:
        return self.source.folder

    def module_name(self, name: str) -> str:
        """The private name a trusted module of this problem is loaded under (in the grader and the child)."""
        return f"infrakata_problem_{self.slug.replace('-', '_')}_{name}"

    def module(self, name: str) -> ModuleType:
        """Load a trusted module of a native problem (`reference`, `cases`) under its private name."""
        path = self.folder / f"{name}.py"
        qualified = self.module_name(name)
        spec = importlib.util.spec_from_file_location(qualified, path)
        if spec is None or spec.loader is None:
            raise FileNotFoundError(f"{path}: cannot be loaded")
        module = importlib.util.module_from_spec(spec)
        sys.modules[qualified] = module  # dataclasses and pickling look modules up by name
        # Run afresh at every grading (its state is that grading's), compiled once per text.
        exec(_compiled(path.read_bytes(), str(path)), module.__dict__)
        return module


@functools.lru_cache(maxsize=128)
def _compiled(source: bytes, filename: str) -> CodeType:
    return compile(source, filename, "exec", dont_inherit=True)
