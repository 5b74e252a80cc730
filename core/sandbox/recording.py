"""A call's recording (core/sandbox/trace.py makes it in the worker): the type both sides share, its
wire form, and the grader's check of what a worker sent, which enforces every cap again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

from infrakata.core.values import DETAIL_CHARS, LABEL_CHARS, MAX_VALUES, NAME_CHARS, InlineValue

TraceLevel = Literal["off", "lines", "values"]
ArgKey = int | str  # an argument by position or by keyword
MAX_WRITES = 64
MAX_WIRE_CHARS = 1 << 20  # a recording's JSON; its fields' own caps come to well under this
MAX_LINE = 10_000_000


@dataclass(frozen=True)
class Recording:
    line: int | None = None  # the line that returned the output (1-based); None where not seen
    writes: tuple[tuple[ArgKey, int], ...] = ()  # (argument, the line that last wrote it)
    values: tuple[InlineValue, ...] = ()

    def write_line(self, key: ArgKey) -> int | None:
        return next((line for k, line in self.writes if k == key), None)


def _check(condition: bool, what: str) -> None:
    if not condition:
        raise ValueError(f"recording: {what}")


def _line(value: Any, what: str) -> int:
    _check(type(value) is int and 1 <= value <= MAX_LINE, f"{what} is not a line number")
    return int(value)


def _text(value: Any, limit: int, what: str, clean: Callable[[str], str], lines: bool = False) -> str:
    _check(type(value) is str and len(value) <= limit, f"{what} is not a string of at most {limit} characters")
    text = clean(value.replace("\t", " "))
    return text if lines else text.replace("\n", " ")


def recording_to_wire(recording: Recording | None) -> str | None:
    """One JSON string, read back under the recording's own rules (`recording_from_wire`)."""
    return None if recording is None else json.dumps(asdict(recording), ensure_ascii=False)


def recording_from_wire(wire: Any, clean: Callable[[str], str]) -> Recording | None:
    """A worker's recording, validated field by field: its size, then types, counts, lengths, line
    numbers; every string through `clean` (the protocol's, which escapes control characters and
    bidirectional overrides), so that an editor shows what it says."""
    if wire is None:
        return None
    _check(type(wire) is str and len(wire) <= MAX_WIRE_CHARS, f"not a string of at most {MAX_WIRE_CHARS} characters")
    try:
        raw = json.loads(wire)
    except (ValueError, RecursionError) as error:
        raise ValueError(f"recording: not JSON ({type(error).__name__})") from None
    _check(isinstance(raw, dict) and set(raw) == {f.name for f in fields(Recording)}, "not a recording")
    line = None if raw["line"] is None else _line(raw["line"], "line")
    writes, values = raw["writes"], raw["values"]
    _check(isinstance(writes, (tuple, list)) and len(writes) <= MAX_WRITES, "malformed writes")
    checked_writes = []
    for write in writes:
        _check(isinstance(write, (tuple, list)) and len(write) == 2, "malformed write")
        key = write[0]
        _check((type(key) is int and 0 <= key < 1024) or (type(key) is str and 0 < len(key) <= NAME_CHARS),
               "malformed argument key")
        checked_writes.append((key, _line(write[1], "write line")))
    _check(isinstance(values, (tuple, list)) and len(values) <= MAX_VALUES, "malformed values")
    names = {f.name for f in fields(InlineValue)}
    checked_values = []
    for value in values:
        _check(isinstance(value, dict) and set(value) == names, "malformed value")
        _check(value["kind"] in ("argument", "local"), "unknown value kind")
        _check(type(value["name"]) is str and value["name"].isidentifier(), "a value's name is not a Python name")
        checked_values.append(InlineValue(
            _line(value["line"], "value line"), value["kind"], _text(value["name"], NAME_CHARS, "name", clean),
            _text(value["label"], LABEL_CHARS, "label", clean),
            _text(value["detail"], DETAIL_CHARS, "detail", clean, lines=True)))
    return Recording(line, tuple(checked_writes), tuple(checked_values))
