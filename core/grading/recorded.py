"""What a solution's call recorded, put on its case: the line a wrong output shows on, and the values."""

from __future__ import annotations

from typing import Any

from infrakata.core import values
from infrakata.core.grading.compare import Comparison
from infrakata.core.grading.results import CaseResult
from infrakata.core.sandbox.pool import CallResult
from infrakata.core.sandbox.recording import ArgKey, TraceLevel


def trace_level(values: bool) -> TraceLevel:
    """What a solution's call records: always the line that returned its output and the lines that
    wrote its graded arguments; the values too when they are wanted."""
    return "values" if values else "lines"


def failure_line(outcome: CallResult, key: ArgKey | None, entry_line: int | None) -> int | None:
    """Where a wrong output shows: the line that returned it, or for a graded argument the line that
    last wrote it; the entry point's `def` where that was not seen."""
    recording = outcome.recording
    line = None if recording is None else recording.line if key is None else recording.write_line(key)
    return line or entry_line


def with_values(result: CaseResult, outcome: CallResult, level: TraceLevel, name: str = "",
                check: Comparison | None = None, actual: Any = None, expected: Any = None) -> CaseResult:
    """A case recorded with its values: those of its arguments and locals and, for a wrong output
    (`check`, of the output or argument `name`), that output beside the expected one on its line."""
    if level != "values":
        return result
    if outcome.recording is not None:
        result.values = list(outcome.recording.values)
    if check is not None and result.line is not None:
        result.values.append(values.output(result.line, name, check.where or name, check.actual or "",
                                           check.expected or "", check.message, actual, expected))
    return result
