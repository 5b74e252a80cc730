"""LeetGPU challenges, the grader's side: the reference and the cases of a challenge read from a user's clone.

The challenge's code is trusted (the user's own clone, named by them): it runs here, with the set's base class put
above it (core/catalog/kinds/leetgpu.py load_leetgpu builds that source, nothing of it written anywhere). Its
reference is `Challenge().reference_impl`; its cases its `generate_example_test()` (a dict, or a list of them) and
`generate_functional_test()`, each a dict of the solve signature's arguments by name, made on the CPU (the grader
moves them to the device the cases run on). Tensors a test describes rather than makes (the base class's
RandTensor, RandnTensor, RandIntTensor, FullTensor, OutTensor) are made here. Both they and torch's own random
numbers (most challenges seed nothing) are drawn after a fixed seed: the same tests at every grading.
Without CUDA, a test whose tensors hold more than LEETGPU_CPU_ELEMENTS elements is left out, said by name: the
Triton interpreter runs a few million elements a second, and a test it cannot finish in its limit grades nothing.
The hidden fresh case is a functional test drawn after a seed of its own (`fresh`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from infrakata.core.catalog.kinds.leetgpu import LEETGPU_CPU_ELEMENTS
from infrakata.core.catalog.problem import FRESH_CASE_NAME, Case, Problem
from infrakata.core.errors import GradingError
from infrakata.core.grading.calls import device_for
from infrakata.core.grading.kinds import CaseDriver, RunOptions, Solution
from infrakata.core.grading.kinds.leetgpu_tests import elements, made_value, uninitialised_memory_filled
from infrakata.core.grading.kinds.native import run_cases

if TYPE_CHECKING:
    from infrakata.core.grading.results import CaseResult
    from infrakata.core.grading.runner import Runner

LEETGPU_FRESH_ELEMENTS = 1 << 16  # the hidden case's tensors, in all: what it adds to a save kept small
_SPEC_SEED = 20260101  # what the fixed tests' random numbers are drawn with: the same at every grading
_LEFT_OUT: dict[Any, list[str]] = {}  # per challenge folder: the tests its last cases() left out


@functools.lru_cache(maxsize=32)
def _module(source: str, filename: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "leetgpu_challenge"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def loaded(problem: Problem) -> dict[str, Any]:
    """The challenge's module (the set's base class, then challenge.py), run in this process once per source."""
    filename = str(problem.source_path / "challenge.py")
    try:
        return _module(problem.reference_source, filename)
    except Exception as error:
        raise GradingError(f"{filename}: the challenge failed to load: {type(error).__name__}: {error}") from error


def reference(problem: Problem) -> Callable[..., Any]:
    """The challenge's reference_impl (in this process; on a device, a worker runs the same source)."""
    solve: Callable[..., Any] = loaded(problem)["solve"]
    return solve


def _tests(problem: Problem, example: bool = True) -> tuple[list[tuple[str, Any]], list[str]]:
    """The challenge's tests as (kind, dict) and solve's parameters; GradingError naming challenge.py."""
    namespace = loaded(problem)
    try:
        challenge = namespace["Challenge"](device="cpu")
        parameters = list(inspect.signature(challenge.reference_impl).parameters)
        tests = []
        if example:
            made = challenge.generate_example_test()
            tests = [("example", t) for t in (made if isinstance(made, list) else [made])]
        tests += [("functional", t) for t in challenge.generate_functional_test()]
    except Exception as error:
        raise GradingError(f"{problem.source_path / 'challenge.py'}: its tests failed to generate: "
                           f"{type(error).__name__}: {error}") from error
    return tests, parameters


def _case(problem: Problem, kind: str, index: int, test: Any, parameters: list[str], generator: Any) -> Case:
    if not isinstance(test, dict) or set(test) - set(parameters):
        raise GradingError(f"{problem.source_path / 'challenge.py'}: {kind} test {index} is not a dict of solve's "
                           f"arguments ({', '.join(parameters)})")
    values = {name: made_value(value, generator) for name, value in test.items()}
    scalars = ", ".join(f"{k}={v}" for k, v in values.items() if isinstance(v, (int, float)) and
                        not isinstance(v, bool))
    return Case(f"{kind} {index}" + (f" ({scalars})" if scalars else ""),
                tuple(values[p] for p in parameters if p in values))


def _drawn(problem: Problem, seed: int, example: bool = True) -> list[Case]:
    """The challenge's tests generated after `seed` (torch's own random numbers and the described tensors'), as
    cases named by kind and number: the example tests (with `example`), then the functional tests."""
    import torch

    # The challenge's draws leave the caller's random state as it was.
    with uninitialised_memory_filled(), torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        tests, parameters = _tests(problem, example)
        generator = torch.Generator().manual_seed(seed)
        counts: dict[str, int] = {}
        made: list[Case] = []
        for kind, test in tests:
            counts[kind] = counts.get(kind, 0) + 1
            made.append(_case(problem, kind, counts[kind], test, parameters, generator))
    return made


def _same(one: tuple[Any, ...], other: tuple[Any, ...]) -> bool:
    import torch

    return all(torch.equal(a, b) if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) else a == b
               for a, b in zip(one, other, strict=True))


def fresh(problem: Problem, seed: int) -> Case:
    """The hidden case: a functional test generated again after `seed`, so that a table of the answers the fixed
    tests showed does not pass. Of the tests whose inputs a seed changes (found by drawing twice), the largest of
    at most LEETGPU_FRESH_ELEMENTS elements (else the smallest)."""
    made, again = _drawn(problem, seed, example=False), _drawn(problem, seed + 1, example=False)
    drawn = [i for i, (a, b) in enumerate(zip(made, again, strict=True)) if not _same(a.args, b.args)]
    candidates = drawn or list(range(len(made)))
    if not candidates:
        raise GradingError(f"{problem.source_path / 'challenge.py'}: generate_functional_test() returned no test")
    sizes = {i: elements(made[i].args) for i in candidates}
    within = [i for i in candidates if sizes[i] <= LEETGPU_FRESH_ELEMENTS]
    chosen = max(within, key=sizes.__getitem__) if within else min(candidates, key=sizes.__getitem__)
    return Case(FRESH_CASE_NAME, made[chosen].args, hidden=True)


def cases(problem: Problem, on_cpu: bool) -> list[Case]:
    """The example tests, then the functional tests, as cases of the solve signature (positional, in its order);
    `on_cpu`: without CUDA, a test over the element budget is left out (left_out names it), unless every one is:
    then the smallest is kept."""
    made = _drawn(problem, _SPEC_SEED)  # the same tests at every grading, where a challenge seeds nothing
    _LEFT_OUT[problem.source_path] = left = []
    if on_cpu and made:  # the rule, said in the statement: over the budget left out, unless all are (the smallest kept)
        sizes = [elements(case.args) for case in made]
        keep = [i for i, size in enumerate(sizes) if size <= LEETGPU_CPU_ELEMENTS] or [sizes.index(min(sizes))]
        left += [case.name for i, case in enumerate(made) if i not in keep]
        made = [made[i] for i in keep]
    return made


def left_out(problem: Problem) -> list[str]:
    """The tests the challenge's last cases() left out (over the element budget), by name."""
    return list(_LEFT_OUT.get(problem.source_path, ()))


def left_out_note(problem: Problem) -> str:
    names = left_out(problem)
    return "" if not names else (f"left out without CUDA, each over {LEETGPU_CPU_ELEMENTS:,} elements (the Triton "
                                 f"interpreter's budget): {', '.join(names)}")


class LeetGpuCases(CaseDriver):
    """A LeetGPU challenge's example and functional tests, graded as a native problem's cases (this module makes
    them and its reference): outputs in place, every other argument unchanged."""

    def run(self, runner: Runner, problem: Problem, solution: Solution,
            options: RunOptions) -> tuple[list[CaseResult], str]:
        results, output = run_cases(runner, problem, solution, options)
        note = left_out_note(problem)
        if note and results:  # said with the first case: what this run did not grade
            results[0].note = "\n".join(part for part in (results[0].note, note) if part)
        return results, output

    def case_inputs(self, runner: Runner, problem: Problem) -> list[Case]:
        return cases(problem, on_cpu=device_for(problem, runner.pool) == "cpu")

    def reference(self, runner: Runner, problem: Problem) -> Callable[..., Any]:
        return reference(problem)

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        return [case.name for case in runner.prepare(problem).cases]

    def machine_note(self, runner: Runner, problem: Problem) -> str:
        graded = self.case_inputs(runner, problem)
        return (left_out_note(problem) or "every test is graded here") + \
            f" ({len(graded)} graded: {', '.join(case.name for case in graded)})"

    def fresh_inputs(self, runner: Runner, problem: Problem, seed: int) -> Case | None:
        return fresh(problem, seed)


DRIVER = LeetGpuCases()
