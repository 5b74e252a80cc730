"""The commands' names (docs/PROTOCOL.md) and how their arguments are read: positional, as the protocol lists
them, or one object with the field names; anything else is InvalidParams naming what the command takes."""

from __future__ import annotations

from typing import Any, TypeVar, cast

import attrs
import cattrs
from pygls.exceptions import JsonRpcInvalidParams

RUN, BENCHMARK, SHOW_PROBLEM, START_KATA, LIST_PROBLEMS, CANCEL = (
    "kata.run", "kata.benchmark", "kata.showProblem", "kata.startKata", "kata.listProblems", "kata.cancel")
HINT, SOLUTION, NEXT = "kata.hint", "kata.solution", "kata.next"

A = TypeVar("A")
_converter = cattrs.Converter()


def parse(command: str, cls: type[A], arguments: tuple[Any, ...]) -> A:
    """Positional arguments (as in PROTOCOL.md), or a single object with the field names."""
    fields = attrs.fields(cast("type[attrs.AttrsInstance]", cls))
    names = [f.name if f.default is attrs.NOTHING else f"{f.name}?" for f in fields]
    if len(arguments) == 1 and isinstance(arguments[0], dict):
        values = arguments[0]
    else:
        required = sum(f.default is attrs.NOTHING for f in fields)
        if not required <= len(arguments) <= len(fields):
            raise JsonRpcInvalidParams(f"{command} takes [{', '.join(names)}]; got {list(arguments)!r}")
        values = dict(zip((f.name for f in fields), arguments, strict=False))
    try:
        return _converter.structure(values, cls)
    except Exception as error:  # noqa: BLE001 - cattrs wraps validator errors in groups
        raise JsonRpcInvalidParams(f"{command} takes [{', '.join(names)}]; got {list(arguments)!r} ({error})") from None
