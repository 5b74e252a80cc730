"""What a grading run produces: plain dataclasses shared by the runner, the CLI and the server."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, get_args

from infrakata.core.values import InlineValue

if TYPE_CHECKING:
    from infrakata.core.sandbox.pool import CallResult

Verdict = Literal["accepted", "wrong_answer", "runtime_error", "time_limit_exceeded", "memory_limit_exceeded",
                  "forbidden", "syntax_error", "crashed"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)


def verdict_words(verdict: Verdict) -> str:
    """How a verdict reads in a sentence: "wrong answer"."""
    return verdict.replace("_", " ")


CaseStatus = Literal["passed", "failed", "error", "timeout", "memory", "skipped"]
Cause = Literal["exception", "crashed", "forbidden"]  # what made a case an error

# The verdict a run gets from its first failing case, by that case's status (crashes are refined below).
VERDICT_OF_STATUS: dict[CaseStatus, Verdict] = {
    "failed": "wrong_answer",
    "error": "runtime_error",
    "timeout": "time_limit_exceeded",
    "memory": "memory_limit_exceeded",
}




@dataclass(frozen=True)
class Finding:
    """A static finding. Lines are 1-based; columns are 1-based code points; end is exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    message: str
    severity: Literal["error", "warning", "information"] = "error"


@dataclass
class CaseResult:
    """One case of a grading, as every front end shows it (a diagnostic, a terminal row, a JSON object):
    its status, the line to point at, and the figures of a wrong answer (hidden ones cleared: hide_expected)."""

    id: int
    name: str
    status: CaseStatus
    time_ms: float = 0.0
    message: str = ""
    line: int | None = None
    max_abs_diff: float | None = None
    max_rel_diff: float | None = None
    mismatched: int | None = None
    elements: int | None = None
    worst_index: list[int] | None = None
    expected: str | None = None
    actual: str | None = None
    # What made an "error" case one: an exception, the solution process died (segfault, os._exit), or it
    # used a forbidden module. None for any other status: a passed case has no cause.
    cause: Cause | None = None
    hidden: bool = False  # a hidden case: what it expected is never shown (hide_expected)
    # The values of the run's first failing case, when they were asked for (core/values.py).
    values: list[InlineValue] = field(default_factory=list)
    # What a report says of the case whatever its status: that its time includes a first compile.
    note: str = ""


@dataclass
class RunReport:
    """A whole grading of one file against one problem: the verdict, its cases in order and the static findings.
    The value every front end renders (report.report_to_dict for JSON, the CLI's rows, the server's diagnostics) and
    the progress store records."""

    problem: str
    file: str
    verdict: Verdict
    cases: list[CaseResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    time_ms: float = 0.0
    title: str = ""
    entry_line: int | None = None
    output: str = ""
    cancelled: bool = False
    # Which device graded it: "cuda:0 (NVIDIA H200)", "cpu (Triton interpreter)" (a kernel problem without CUDA),
    # or "cpu" (calls.device_name).
    device: str = ""

    @property
    def passed(self) -> int:
        return sum(case.status == "passed" for case in self.cases)

    @property
    def total(self) -> int:
        return len(self.cases)

    @property
    def accepted(self) -> bool:
        return self.verdict == "accepted"


HIDDEN_MESSAGE = "wrong answer on a hidden case (what it expects is not shown)"


def hide_expected(case: CaseResult) -> CaseResult:
    """The case without what it expected, or anything computed from it (a difference gives the expected
    value away from the actual one): for the cases a problem hides, and for every case with
    `kata grade --hidden` (leaderboards). An error's message stays: it is the solution's own."""
    if case.status == "failed":
        case.message = HIDDEN_MESSAGE
    case.max_abs_diff = case.max_rel_diff = case.mismatched = case.worst_index = case.expected = case.actual = None
    case.values = [value for value in case.values if value.kind != "output"]  # it shows the expected value
    case.hidden = True
    return case


def verdict_of(cases: list[CaseResult]) -> Verdict:
    for case in cases:
        if case.status == "passed":
            continue
        if case.status == "error" and (case.cause == "crashed" or case.cause == "forbidden"):
            return case.cause
        return VERDICT_OF_STATUS.get(case.status, "wrong_answer")
    return "accepted" if cases else "wrong_answer"


_STATUS_OF_ERROR: dict[str, CaseStatus] = {"timeout": "timeout", "memory": "memory", "skipped": "skipped"}


def case_text(case: CaseResult) -> str:
    """A case's message and note, as a report shows them beside the case (a passed case has no message)."""
    return "\n".join(part for part in (case.message if case.status != "passed" else "", case.note) if part)


def compile_note(took_s: float, time_limit_s: float) -> str:
    """A first call that ran over the time limit within the compile allowance (core/limits.py)."""
    return (f"took {took_s:.1f} s, including the first compile of its kernels (the {time_limit_s:g} s limit "
            f"applies from the second call)")


def compile_timeout_message(time_limit_s: float, allowance_s: float) -> str:
    """A first call that ran over the time limit and the compile allowance both."""
    return (f"time limit exceeded: the first call ran over {time_limit_s + allowance_s:g} s, the {time_limit_s:g} s "
            f"limit plus {allowance_s:g} s for the first compile of its kernels")


def not_run_after_timeout(case_id: int) -> str:
    return f"not run: case {case_id} exceeded the time limit; a run stops at its first timeout"


def error_case(index: int, name: str, outcome: CallResult, entry_line: int | None) -> CaseResult:
    """A case that did not produce an output: exception, forbidden, timeout, memory, crash."""
    error = outcome.error
    kind = error.kind if error else outcome.status
    status = _STATUS_OF_ERROR.get(kind, "error")
    cause: Cause | None = None
    if status == "error":
        cause = "crashed" if kind == "crashed" else "forbidden" if kind == "forbidden" else "exception"
    message = error.message if error else outcome.status
    if error and error.traceback and error.kind in ("exception", "memory", "forbidden"):
        message = f"{message}\n{error.traceback.rstrip()}"
    return CaseResult(index, name, status, outcome.time_ms, message,
                      (error.line if error and error.line else entry_line), cause=cause)


NO_LAUNCH_MESSAGE = ("no Triton kernel was launched during the call: this kata grades a kernel of your own (a "
                     "`@triton.jit` function launched as `kernel[grid](...)`); plain torch computes the same numbers, "
                     "but it is not the exercise")


def no_launch_case(index: int, name: str, outcome: CallResult, entry_line: int | None) -> CaseResult:
    """A kernel kata's call that returned without launching a Triton kernel ([grading] triton_launch)."""
    return CaseResult(index, name, "error", outcome.time_ms, NO_LAUNCH_MESSAGE, entry_line, cause="forbidden")


def too_many_launches_case(index: int, name: str, outcome: CallResult, entry_line: int | None,
                           allowed: int) -> CaseResult:
    """A kernel kata's call that launched more Triton kernels than its statement allows ([grading]
    launches_per_call): a loop of launches where one kernel should cover the whole call."""
    return CaseResult(index, name, "error", outcome.time_ms, too_many_launches_message(outcome.launches, allowed),
                      entry_line, cause="forbidden")


def too_many_launches_message(launches: int, allowed: int) -> str:
    one = "one launch" if allowed == 1 else f"{allowed} launches"
    return (f"the call launched {launches} Triton kernels where this kata allows {one}: the whole call's work "
            f"belongs in {one}, not a launch per expert, block or row")
