"""Native problems, the grading side: the reference's outputs, prepared once per problem version and device by the
Runner (core/grading/runner.py), against one call per case in the solution's worker; the outputs, the arguments
graded in place, those that must come back unchanged, and a kernel kata's rules as the Triton interpreter measured
them (core/grading/kernel_rules.py). LeetGPU's tests run here too (core/grading/kinds/leetgpu.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from infrakata.core.catalog.kinds import kind_of
from infrakata.core.catalog.kinds.native import NativeSource
from infrakata.core.catalog.problem import FRESH_CASE_NAME, Case, Problem
from infrakata.core.errors import GradingError
from infrakata.core.grading.calls import SolutionCalls, solution_spec
from infrakata.core.grading.compare import Comparison, Tolerance, compare, unchanged
from infrakata.core.grading.kernel_rules import OUTPUTS, broken_rule
from infrakata.core.grading.kinds import CaseDriver, RunOptions, Solution
from infrakata.core.grading.recorded import failure_line, trace_level, with_values
from infrakata.core.grading.results import (
    CaseResult,
    error_case,
    hide_expected,
    no_launch_case,
    not_run_after_timeout,
    too_many_launches_case,
)
from infrakata.core.grading.runner import PreparedCase, tolerance_of
from infrakata.core.sandbox.arena import InputArena
from infrakata.core.sandbox.pool import CallResult
from infrakata.core.sandbox.recording import ArgKey, Recording, TraceLevel
from infrakata.core.torch_stand_in import holds_tensor, tensor_bytes, tensors_in

if TYPE_CHECKING:
    from infrakata.core.grading.runner import Runner


class NativeCases(CaseDriver):
    """Case by case, against the reference's outputs; what the cases must refuse, its wrong/ solutions and mutants
    say (so no weaknesses of its own)."""

    def run(self, runner: Runner, problem: Problem, solution: Solution,
            options: RunOptions) -> tuple[list[CaseResult], str]:
        return run_cases(runner, problem, solution, options)

    def case_inputs(self, runner: Runner, problem: Problem) -> list[Case]:
        inline = problem.source.inline_cases if isinstance(problem.source, NativeSource) else ()
        if inline:
            return list(inline)
        try:
            generated = problem.module("cases").cases()
            return [Case(c.get("name", f"case {i}"), tuple(c["args"]), dict(c.get("kwargs", {})),
                         bool(c.get("hidden", False))) for i, c in enumerate(generated, 1)]
        except Exception as error:
            raise GradingError(f"{problem.folder / 'cases.py'}: cases() failed: {type(error).__name__}: {error}") \
                from error

    def reference(self, runner: Runner, problem: Problem) -> Callable[..., Any]:
        entry: Callable[..., Any] | None = getattr(problem.module("reference"), problem.entry_point, None)
        if not callable(entry):
            raise GradingError(f"{problem.folder / 'reference.py'}: defines no function '{problem.entry_point}'")
        return entry

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        fresh = [FRESH_CASE_NAME] if kind_of(problem).has_fresh_cases(problem) else []
        return [case.name for case in runner.prepare(problem).cases] + fresh

    def fresh_inputs(self, runner: Runner, problem: Problem, seed: int) -> Case | None:
        try:
            made = problem.module("cases").fresh(seed)
            return Case(FRESH_CASE_NAME, tuple(made["args"]), dict(made.get("kwargs", {})), hidden=True)
        except Exception as error:
            raise GradingError(f"{problem.folder / 'cases.py'}: fresh() failed: {type(error).__name__}: "
                               f"{error}") from error


DRIVER = NativeCases()


def run_cases(runner: Runner, problem: Problem, solution: Solution,
              options: RunOptions) -> tuple[list[CaseResult], str]:
    """A problem's cases against the reference's outputs (prepared by the Runner), one call each in the solution's
    worker, with the kernel kata's rules checked on each that passes."""
    prepared = runner.prepare(problem)
    cases, device = prepared.cases, prepared.device
    entry_line, values, stop_early = solution.entry_line, options.values, options.stop_early
    # The fresh case last, so that a wrong solution's verdict is its fixed cases' (a mutant's run, which
    # stops at its first failure, is judged on those alone: the same every time).
    fresh = None if stop_early else runner.fresh_for_run(problem, options.fresh_seed, prepared.version)
    cases = cases if fresh is None else [*cases, fresh]
    # Each case's call, and the replay of each that fails (SolutionCalls.replay).
    spec = solution_spec(problem, solution.source, solution.filename, calls=2 * len(cases), cuda=device == "cuda",
                         trusted=options.trusted)
    if spec.torch_free and any(holds_tensor((case.args, case.kwargs)) for case in cases):
        spec = replace(spec, torch_free=False)
    tolerance = tolerance_of(problem)
    results: list[CaseResult] = []
    # The unchangeable tensor arguments, in memory this process reads after each call (on the CPU).
    arena = InputArena.for_layout(runner.arena_layout(prepared, fresh)) if device == "cpu" else None
    with SolutionCalls(runner.pool, problem, spec, device, options.cancel, arena) as calls:
        for index, case in enumerate(cases, 1):
            shared = arena.shared_keys(index - 1) if arena is not None else set()
            args, kwargs = arena.prepare(index - 1, case.args, case.kwargs) if arena is not None \
                else (case.args, case.kwargs)
            reported = tuple(k for k in case.frozen_keys if k not in shared)
            outcome = calls.call(index, args, kwargs, snapshot=case.state_keys + reported, graded=case.state_keys)
            if outcome.status == "cancelled":
                break
            if arena is not None and outcome.status == "ok":
                # What the call did to them, as this process reads it: not the solution's word.
                outcome.state.update({k: case.originals[k] for k in shared})
                outcome.state.update(arena.after_call(index - 1))
            if calls.load_failed:
                results.append(error_case(index, case.name, outcome, entry_line))
                results += [CaseResult(i, c.name, "skipped", message="not run: the solution failed to load")
                            for i, c in enumerate(cases[index:], index + 1)]
                break
            result, failure = _judge(problem, index, case, outcome, tolerance)
            # Values are wanted of the first failing case only (none after it), and never of the fresh one.
            level = trace_level(values and not case.fresh and all(r.status == "passed" for r in results))
            replayed = None
            if failure is not None and not stop_early and outcome.status in ("ok", "error") \
                    and (level == "values" or failure.graded is not None):
                again = arena.prepare(index - 1, case.args, case.kwargs) if arena is not None else (args, kwargs)
                replayed = calls.replay(*again, trace=level, watch=case.state_keys + case.frozen_keys)
            results.append(_placed(result, failure, outcome, replayed, level, entry_line, case.hidden))
            if results[-1].status == "passed" and spec.count_launches:  # right, but is it the kernel asked?
                allowed = problem.grading.launches_per_call
                if not outcome.launches:
                    results[-1] = no_launch_case(index, case.name, outcome, entry_line)
                elif allowed and outcome.launches > allowed:
                    results[-1] = too_many_launches_case(index, case.name, outcome, entry_line, allowed)
                elif (broken := _kernel_rule(problem, case, outcome)) is not None:
                    results[-1] = CaseResult(index, case.name, "error", outcome.time_ms, broken, entry_line,
                                             cause="forbidden")
            if outcome.status == "timeout":  # the next call would not be made: say so for every case
                results += [CaseResult(i, c.name, "skipped", message=not_run_after_timeout(index))
                            for i, c in enumerate(cases[index:], index + 1)]
                break
            if stop_early and results[-1].status != "passed":
                results += [CaseResult(i, c.name, "skipped", message=f"not run: case {index} failed")
                            for i, c in enumerate(cases[index:], index + 1)]
                break
    for result in results:
        result.note = calls.notes.get(result.id, "")
    if arena is not None:
        arena.close()
    if fresh is not None and options.fresh_seed is None:  # after the run: its draw takes nothing from the run
        runner.draw_ahead(problem, prepared.version)
    return results, "".join(calls.output)


def _judge(problem: Problem, index: int, case: PreparedCase, outcome: CallResult,
       tolerance: Tolerance) -> tuple[CaseResult, _Failure | None]:
    """The case's result, its line not yet placed, and what failed (None: it passed)."""
    if outcome.status != "ok":
        return error_case(index, case.name, outcome, None), _Failure(None)
    checks: list[_Failure] = [
        _Failure(None, compare(outcome.value, case.expected, tolerance, names=problem.grading.output_names),
                 outcome.value, case.expected)] if problem.grading.graded_return else []
    for key in case.state_keys:
        checks.append(_Failure(key, compare(outcome.state.get(key), case.expected_state[key], tolerance,
                                            root=f"{case.keys[key]} after the call"),
                               outcome.state.get(key), case.expected_state[key], case.keys[key]))
    for key in case.frozen_keys:
        check = unchanged(outcome.state.get(key), case.originals[key], case.keys[key])
        checks.append(_Failure(key, check, outcome.state.get(key), case.originals[key], case.keys[key]))
    failed = next((c for c in checks if c.check is not None and not c.check.ok), None)
    if failed is None:
        assert checks[0].check is not None
        return CaseResult(index, case.name, "passed", outcome.time_ms, **checks[0].check.measures()), None
    assert failed.check is not None
    return CaseResult(index, case.name, "failed", outcome.time_ms, failed.check.message,
                      **failed.check.measures()), failed


def _kernel_rule(problem: Problem, case: PreparedCase, outcome: CallResult) -> str | None:
    """The kernel kata's rule a passing call broke, as the Triton interpreter measured it (kernel_rules)."""
    names = list(problem.grading.output_names)

    def name_of(key: Any) -> str:
        if key == "return":
            return names[0] if len(names) == 1 else "out"
        if isinstance(key, str) and key.startswith("return["):
            index = int(key[7:-1])
            return names[index] if index < len(names) else f"out[{index}]"
        return case.keys.get(key, str(key))

    def fused() -> int:
        if problem.grading.traffic == OUTPUTS:
            return output_bytes(case.expected, case.expected_state)
        return int(getattr(problem.module("cases"), problem.grading.traffic)(*case.args, **case.kwargs))

    return broken_rule(problem, outcome.kernels, name_of, fused if problem.grading.traffic else None)


def output_bytes(expected: Any, expected_state: Any) -> int:
    """The bytes a fused kernel must write: the arguments it updates in place, and what it returns beside them (a
    kata that returns the arguments it updated, as rotary returns q and k, writes them once)."""
    written = tensors_in(expected_state)
    returned = [tensor for tensor in tensors_in(expected)
                if not any(tensor.shape == state.shape and tensor.dtype == state.dtype and bool((tensor == state).all())
                           for state in written)]
    return tensor_bytes(written) + tensor_bytes(returned)


@dataclass
class _Failure:
    """What made a case fail: its output (`graded` None) or a graded or unchangeable argument, the
    comparison that said so, and the values compared; an outcome that was no output has no comparison."""

    graded: ArgKey | None
    check: Comparison | None = None
    actual: Any = None
    expected: Any = None
    name: str = "return"


def _placed(result: CaseResult, failure: _Failure | None, outcome: CallResult, replayed: Recording | None,
            level: TraceLevel, entry_line: int | None, hidden: bool) -> CaseResult:
    """The case's result on its line, with its values where they were recorded (in the replay, where the
    case was made again), and its expected values hidden where the case is."""
    if failure is not None:
        recorded = outcome if replayed is None else replace(outcome, recording=replayed)
        if failure.check is None:
            result.line = result.line or entry_line
            result = with_values(result, recorded, level)
        else:
            result.line = failure_line(recorded, failure.graded, entry_line)
            result = with_values(result, recorded, level, failure.name, failure.check, failure.actual,
                                 failure.expected)
    return hide_expected(result) if hidden else result
