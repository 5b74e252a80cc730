"""KernelBench problems, the grader's side: a solution's `ModelNew` against the problem's `Model` on seeded trials.

As KernelBench's eval.py defines correctness: both models are built after seeding with 42 (so their
weights are equal), then called on `num_correct_trials` (5) trials, each drawing its inputs with
`get_inputs()` after a seed of its own (derived from 42 as KernelBench derives them), and their outputs
agree within KernelBench's tolerance for the inputs' precision (fp32 1e-4, fp16 and bf16 1e-2; v0.1's 1e-2 on
request: `_Module.tolerance`). A sixth trial, hidden, draws its seeds anew at every grading.

The problem's code is trusted: the reference's `Model` runs in a worker of its own
(core/grading/kinds/kernelbench_worker.py), its outputs kept per problem version and device. Each worker makes a
trial's inputs itself from the trial's seeds, with the problem's `get_inputs()` loaded before the solution;
only the seeds cross the wire, never tensors (a KernelBench file's inputs may be gigabytes), and here the
file runs only to size its inputs on the meta device. The solution's worker is never sent what it is
expected to return; it builds and calls `ModelNew` in a trusted harness, which reports the inputs the call
wrote to. docs/KERNELS.md (KernelBench problems) says what this holds against.
"""

from __future__ import annotations

import ast
import contextlib
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from infrakata.core import pysource
from infrakata.core.catalog.kinds.kernelbench import KERNELBENCH_TOLERANCES, KernelBenchSource
from infrakata.core.catalog.problem import FRESH_CASE_NAME, Problem
from infrakata.core.errors import GradingError
from infrakata.core.grading.calls import SolutionCalls, device_for, reference_filename, solution_spec
from infrakata.core.grading.compare import Comparison, Tolerance, compare
from infrakata.core.grading.kinds import CaseDriver, RunOptions, Solution
from infrakata.core.grading.recorded import failure_line, trace_level, with_values
from infrakata.core.grading.results import CaseResult, error_case, hide_expected
from infrakata.core.limits import MIB
from infrakata.core.sandbox.arena import ArenaLayout, InputArena
from infrakata.core.sandbox.pool import CallResult, Worker, WorkerPool
from infrakata.core.sandbox.protocol import ErrorInfo, clean_text
from infrakata.core.sandbox.recording import TraceLevel, recording_from_wire

if TYPE_CHECKING:
    from infrakata.core.grading.runner import Runner

TRIAL = "infrakata.core.grading.kinds.kernelbench_worker:trial"
# What a trial's worker imports before the solution (SolutionSpec.preload): the harness that builds and calls it.
TRIAL_HARNESS = ("infrakata.core.grading.kinds.kernelbench_worker",)
INIT_SEED = 42  # KernelBench's seed_num: the weights' seed, and the one its trials' seeds are drawn from
TRIALS = 5  # KernelBench's num_correct_trials
# What a trial's inputs may take on the CPU. KernelBench sizes its problems for a GPU (gigabytes of inputs);
# shrinking them is no general transform (sizes are constants the model's code relies on), so over this
# the grading is refused, saying which constants to shrink in a copy (problems/FORMAT.md).
CPU_INPUT_BUDGET_BYTES = 256 * MIB
# The arena a trial's inputs are laid into on the CPU: the budget, and room for each tensor's alignment. Pages are
# taken as they are written, so what a trial's inputs do not reach costs nothing.
ARENA_BYTES = CPU_INPUT_BUDGET_BYTES + MIB

# The grader's global random generator is seeded to make a trial's inputs: one trial at a time, whichever
# thread asks, and the generator's state given back after.
_SEEDING = threading.Lock()


@dataclass(frozen=True)
class Trial:
    name: str
    init_seed: int  # the weights' and get_init_inputs()'s seed
    seed: int  # get_inputs()'s and the forward call's
    expected: Any = None
    fresh: bool = False  # drawn at this grading: hidden, inputs and all


def trial_seeds(count: int = TRIALS, seed: int = INIT_SEED) -> list[int]:
    """The trials' seeds, as KernelBench's run_and_check_correctness draws them from its seed."""
    import torch

    with _SEEDING, torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return [int(torch.randint(0, 2**32 - 1, (1,)).item()) for _ in range(count)]


class _Module:
    """The problem's file run here (trusted), to size its inputs: its get_inputs and get_init_inputs on the meta
    device, and its size constants."""

    def __init__(self, problem: Problem):
        self.problem = problem
        self.namespace: dict[str, Any] = {"__name__": problem.module_name("kernelbench"),
                                          "__file__": str(problem.source_path)}
        try:
            exec(compile(problem.reference_source, str(problem.source_path), "exec"), self.namespace)
        except Exception as error:
            raise GradingError(f"{problem.source_path}: the problem's module failed to run: "
                               f"{type(error).__name__}: {error}") from error

    def sized_inputs(self, seed: int = INIT_SEED) -> list[Any]:
        """A trial's inputs made on the meta device, after its seed: their shapes and dtypes, nothing allocated.
        GradingError where get_inputs() cannot run there."""
        import torch

        with torch.device("meta"):
            return self.inputs(seed)

    def inputs(self, seed: int) -> list[Any]:
        """A trial's inputs, made as KernelBench makes them (on the CPU, after the trial's seed)."""
        import torch

        with _SEEDING, torch.random.fork_rng(devices=[]):
            try:
                torch.manual_seed(seed)
                return list(self.namespace["get_inputs"]())
            except Exception as error:
                raise GradingError(f"{self.problem.source_path}: get_inputs() failed: {type(error).__name__}: "
                                   f"{error}") from error

    def tolerance(self) -> Tolerance:
        """KernelBench's tolerance for the precision of the trial's inputs (the lowest of its floating-point ones:
        fp32 1e-4, fp16 and bf16 1e-2), or v0.1's 1e-2 where the problem was loaded so (the problem's own)."""
        import torch

        source = self.problem.source
        if not isinstance(source, KernelBenchSource) or source.tolerance != "precision":
            return Tolerance(self.problem.atol, self.problem.rtol)
        try:
            inputs = self.sized_inputs()
        except GradingError:  # not sizable on the meta device: made, once per problem version
            inputs = self.inputs(INIT_SEED)
        precisions = {str(x.dtype).removeprefix("torch.") for x in inputs
                      if isinstance(x, torch.Tensor) and x.is_floating_point()}
        tolerance = max((KERNELBENCH_TOLERANCES.get(p, KERNELBENCH_TOLERANCES["float32"]) for p in precisions),
                        default=KERNELBENCH_TOLERANCES["float32"])
        return Tolerance(tolerance, tolerance)

    def check_size(self, inputs: list[Any] | None = None) -> None:
        """Refuse, on the CPU, inputs over the budget: sized on the meta device, so nothing is allocated, or
        `inputs` as made."""
        import torch

        if inputs is None:
            try:
                inputs = self.sized_inputs()
            except GradingError:
                return  # not sizable without allocating: made for real, and checked then
        size = sum(x.numel() * x.element_size() for x in inputs if isinstance(x, torch.Tensor))
        if size <= CPU_INPUT_BUDGET_BYTES:
            return
        shapes = ", ".join(f"{'x'.join(map(str, x.shape))} {str(x.dtype).removeprefix('torch.')}"
                           for x in inputs if isinstance(x, torch.Tensor))
        constants = ", ".join(f"{name} = {value} (line {line})" for name, value, line in
                              _size_constants(self.problem.reference_source))
        raise GradingError(
            f"{self.problem.source_path}: a trial's inputs take {size / MIB:,.0f} MiB ({shapes}); without CUDA a "
            f"KernelBench problem is graded on the CPU within {CPU_INPUT_BUDGET_BYTES // MIB} MiB of inputs. Grade "
            f"it on a machine with CUDA, or copy the file and shrink its sizes"
            + (f" ({constants})" if constants else "") + " so that the copy is a problem of its own")


def _size_constants(source: str) -> list[tuple[str, int, int]]:
    """The module's integer constants (batch_size = 4096): a KernelBench file's sizes."""
    try:
        tree = pysource.tree(source)
    except (SyntaxError, ValueError):
        return []
    return [(node.targets[0].id, node.value.value, node.lineno) for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant) and type(node.value.value) is int]


def forward_parameters(source: str) -> list[str]:
    """The names of Model.forward's inputs, for messages (`x`, `A`, `B`)."""
    try:
        tree = pysource.tree(source)
    except (SyntaxError, ValueError):
        return []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "forward":
                    return [a.arg for a in item.args.args[1:]]
    return []


@dataclass
class _Prepared:
    trials: list[Trial]
    module: _Module  # makes each trial's inputs, on the CPU, in the grader's arena
    tolerance: Tolerance  # the problem's, by its inputs' precision (_Module.tolerance)


def _version(problem: Problem, device: str) -> tuple[Any, ...]:
    return (problem.source_path.stat().st_mtime_ns, problem.reference_source, device)


class _Reference:
    """The problem's Model in a worker of its own (trusted code only), on the device the solution runs on."""

    def __init__(self, problem: Problem, pool: WorkerPool, device: str, calls: int):
        self.problem, self.device, self.calls = problem, device, 0
        cuda = device == "cuda"
        spec = solution_spec(problem, problem.reference_source, reference_filename(problem), calls=calls, cuda=cuda,
                             preload=TRIAL_HARNESS, trusted=True)
        self.worker: Worker = pool.open(replace(spec, entry_point="Model"), problem.limits.load_timeout(cuda))
        if self.worker.load_error is not None:
            self.worker.close()
            raise GradingError(f"{problem.source_path}: the reference failed to load: "
                               f"{self.worker.load_error.message}")

    def __call__(self, trial: Trial) -> Trial:
        timeout = self.problem.limits.call_timeout(self.device == "cuda", first=self.calls == 0)
        self.calls += 1
        outcome = self.worker.harness(TRIAL, _payload(trial, self.device, "off"), timeout=timeout)
        if outcome.status != "ok" or not isinstance(outcome.value, dict) or "output" not in outcome.value:
            message = outcome.error.message if outcome.error else outcome.status
            raise GradingError(f"{self.problem.source_path}: the reference failed on {trial.name} ({self.device}): "
                               f"{message}")
        return replace(trial, expected=outcome.value["output"])

    def __enter__(self) -> _Reference:
        return self

    def __exit__(self, *exc: object) -> None:
        self.worker.close()


def _payload(trial: Trial, device: str, level: TraceLevel) -> dict[str, Any]:
    """A trial's request: its seeds (the worker makes the inputs), never tensors."""
    return {"init_seed": trial.init_seed, "seed": trial.seed, "device": device, "trace": level}


def prepare(runner: Runner, problem: Problem, device: str) -> _Prepared:
    """The fixed trials with the reference's outputs, made once per problem version and device (kept by the
    runner)."""

    def make() -> _Prepared:
        module = _Module(problem)  # the file runs (or says why not) before a worker is opened for it
        if device == "cpu":
            module.check_size()
        trials = [Trial(f"trial {index} (seed {seed})", INIT_SEED, seed) for index, seed in enumerate(trial_seeds(), 1)]
        with _Reference(problem, runner.pool, device, len(trials)) as reference:
            trials = [reference(trial) for trial in trials]
        return _Prepared(trials, module, module.tolerance())

    return runner.kept(problem, _version(problem, device), make)


def fresh_trial(runner: Runner, problem: Problem, device: str, seed: int | None) -> Trial:
    """The hidden trial: its weights' and inputs' seeds drawn at every grading (or `seed` for both)."""
    prepare(runner, problem, device)  # the problem's checks, before a worker is opened for it
    init_seed = secrets.randbits(32) if seed is None else seed
    seed = secrets.randbits(32) if seed is None else seed
    with _Reference(problem, runner.pool, device, 1) as reference:
        return reference(Trial(FRESH_CASE_NAME, init_seed, seed, fresh=True))


def weaknesses(runner: Runner, problem: Problem) -> list[str]:
    """What makes the problem weak: a trivial output (zeros, one constant, an input passed through) within the
    tolerance of the reference's on every fixed trial, on the problem's own inputs. A ModelNew returning it would
    be accepted without computing anything (ReLU on `torch.rand`'s inputs, which are never negative, is the
    identity; KernelBench's users report outputs within 1e-2 of zero on a few level-1 problems)."""
    import torch

    prepared = prepare(runner, problem, device_for(problem, runner.pool))
    names = forward_parameters(problem.reference_source)
    candidates: dict[str, list[bool]] = {}
    for trial in prepared.trials:
        expected = trial.expected
        if not isinstance(expected, torch.Tensor) or not expected.is_floating_point() or not expected.numel():
            return []  # the output is no single floating-point tensor: nothing trivial to try
        inputs = prepared.module.inputs(trial.seed)
        trivial = {"zeros": torch.zeros_like(expected),
                   "one constant (its outputs' mean)": torch.full_like(expected, float(expected.double().mean()))}
        for index, value in enumerate(inputs):
            if isinstance(value, torch.Tensor) and value.shape == expected.shape:
                name = names[index] if index < len(names) else f"input {index}"
                trivial[f"its input {name} unchanged"] = value.to(expected.dtype)
        for what, output in trivial.items():
            candidates.setdefault(what, []).append(compare(output, expected, prepared.tolerance).ok)
    tolerance = f"atol = rtol = {prepared.tolerance.atol:.0e}"
    why = {"zeros": "the reference's outputs are that close to zero: scale them up (larger inputs or weights)",
           "one constant (its outputs' mean)": "the reference's outputs barely vary: draw inputs that spread them"}
    weak = [what for what, held in candidates.items() if held and all(held)]
    if "zeros" in weak:  # zero is a constant: one message says it
        weak.remove("one constant (its outputs' mean)")
    return [f"{problem.source_path}: a ModelNew returning {what} is within {tolerance} of the reference on every one "
            f"of the {len(prepared.trials)} trials, so it would be accepted without computing anything; "
            + why.get(what, "the problem's inputs (get_inputs) make forward the identity on them: draw inputs "
                            "where it is not (torch.randn rather than torch.rand for a ReLU, say)")
            for what in weak]


def case_names() -> list[str]:
    return [f"trial {index} (seed {seed})" for index, seed in enumerate(trial_seeds(), 1)] + [FRESH_CASE_NAME]


def run_trials(runner: Runner, problem: Problem, solution: Solution,
               options: RunOptions) -> tuple[list[CaseResult], str]:
    """Grade a ModelNew on the trials, the hidden one last (never with `stop_early`: its verdict would not
    repeat), stopping at the first trial that times out."""
    device = device_for(problem, runner.pool)
    prepared = prepare(runner, problem, device)
    trials = list(prepared.trials)
    stop_early, values, entry_line = options.stop_early, options.values, solution.entry_line
    if not stop_early:
        trials.append(fresh_trial(runner, problem, device, options.fresh_seed))
    spec = solution_spec(problem, solution.source, solution.filename, calls=len(trials), cuda=device == "cuda",
                         preload=TRIAL_HARNESS, trusted=options.trusted)
    tolerance = prepared.tolerance
    names = forward_parameters(problem.reference_source)
    results: list[CaseResult] = []
    # On the CPU the grader makes each trial's inputs, in memory it reads back after the call: whether the call
    # changed them is decided here, never by code in the solution's process (on CUDA: docs/KERNELS.md).
    arena = InputArena(ArenaLayout([]), capacity=ARENA_BYTES) if device == "cpu" else None
    with contextlib.closing(arena) if arena is not None else contextlib.nullcontext(), \
            SolutionCalls(runner.pool, problem, spec, device, options.cancel, arena) as calls:
        for index, trial in enumerate(trials, 1):
            level = trace_level(values and not trial.fresh and all(r.status == "passed" for r in results))
            given = _inputs_in(arena, prepared.module, trial) if arena is not None else ()
            outcome = _read(calls.harness(index, TRIAL, _payload(trial, device, level), given))
            if arena is not None and outcome.status == "ok":
                outcome.state["changed"] = arena.changed_since_laid()
            if outcome.status == "cancelled":
                break
            if calls.load_failed:
                results.append(error_case(index, trial.name, outcome, entry_line))
                results += [CaseResult(i, t.name, "skipped", message="not run: the solution failed to load")
                            for i, t in enumerate(trials[index:], index + 1)]
                break
            result = _judge(index, trial, outcome, tolerance, names, level, entry_line)
            results.append(hide_expected(result) if trial.fresh else result)
            if results[-1].status != "passed" and (stop_early or outcome.status == "timeout"):
                why = f"case {index} failed" if outcome.status != "timeout" else f"case {index} timed out"
                results += [CaseResult(i, t.name, "skipped", message=f"not run: {why}")
                            for i, t in enumerate(trials[index:], index + 1)]
                break
    for result in results:
        result.note = calls.notes.get(result.id, "")
    return results, "".join(calls.output)


def _inputs_in(arena: InputArena, module: _Module, trial: Trial) -> tuple[Any, ...]:
    """The trial's inputs made here and laid into the arena: what the request sends (its tensors as places)."""
    inputs = module.inputs(trial.seed)
    module.check_size(inputs)
    try:
        placed = arena.lay(dict(enumerate(inputs)))
    except ValueError as error:  # within the budget, yet laid out larger than the arena: not expected
        raise GradingError(f"{module.problem.source_path}: {error}") from None
    return tuple(placed.get(index, value) for index, value in enumerate(inputs))


def _read(outcome: CallResult) -> CallResult:
    """The harness's answer as a call's: its output, and its recording read as the worker's own recordings
    are (checked field by field). A malformed answer means the solution tampered with the harness."""
    if outcome.status != "ok":
        return outcome
    value = outcome.value
    try:
        if not (isinstance(value, dict) and set(value) == {"output", "recording", "changed"}):
            raise ValueError("not a trial's answer")
        changed = value["changed"]
        if not (isinstance(changed, list) and all(type(i) is int and i >= 0 for i in changed)):
            raise ValueError("malformed changed inputs")
        recording = recording_from_wire(value["recording"], clean_text)
    except ValueError:
        return replace(outcome, status="error", value=None, error=ErrorInfo(
            "HarnessTampered", "the trial's harness answered in a shape it never sends: the solution interfered "
                               "with it"))
    return replace(outcome, value=value["output"], state={"changed": changed}, recording=recording)


def _judge(index: int, trial: Trial, outcome: CallResult, tolerance: Tolerance, names: list[str],
           level: TraceLevel, entry_line: int | None) -> CaseResult:
    if outcome.status != "ok":
        result = error_case(index, trial.name, outcome, entry_line)
        return with_values(result, outcome, level)
    check = compare(outcome.value, trial.expected, tolerance)
    changed = outcome.state.get("changed") or []
    if check.ok and changed:
        which = ", ".join(f"input {i} ({names[i]})" if i < len(names) else f"input {i}" for i in changed)
        check = Comparison(False, f"forward wrote to {which} in place: a KernelBench trial's inputs are read-only "
                                  f"(changed inputs can make a checker compare the reference on other data)")
    if check.ok:
        return CaseResult(index, trial.name, "passed", outcome.time_ms, **check.measures())
    result = CaseResult(index, trial.name, "failed", outcome.time_ms, check.message,
                        failure_line(outcome, None, entry_line), **check.measures())
    return with_values(result, outcome, level, "return", check, outcome.value, trial.expected)


class KernelBenchCases(CaseDriver):
    """Seeded trials, one by one: ModelNew built and called in a trusted harness in its worker. The grader makes no
    inputs (get_inputs() makes each trial's from its seed), and the hidden trial is drawn with the others
    (fresh_trial); its sizes on the CPU follow one rule for every file (problems/FORMAT.md)."""

    def run(self, runner: Runner, problem: Problem, solution: Solution,
            options: RunOptions) -> tuple[list[CaseResult], str]:
        return run_trials(runner, problem, solution, options)

    def reference(self, runner: Runner, problem: Problem) -> Callable[..., Any]:
        raise GradingError(f"{problem.slug}: a KernelBench problem's reference is its Model, run in a worker")

    def case_names(self, runner: Runner, problem: Problem) -> list[str]:
        return case_names()

    def weaknesses(self, runner: Runner, problem: Problem) -> list[str]:
        return weaknesses(runner, problem)


DRIVER = KernelBenchCases()
