"""Typed access to a problem file's parsed fields (problem.toml, a codestar JSON): each error names the file,
the field and its line."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from infrakata.core.errors import ProblemError
from infrakata.core.limits import Limits


def line_of(text: str, key: str) -> int | None:
    """The line where a TOML key or JSON field is written, for error messages."""
    pattern = re.compile(rf'^\s*"?{re.escape(key)}"?\s*[=:]', re.M)
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


class Fields:
    """Typed access to a parsed table; every error names the file, field and line."""

    def __init__(self, data: dict[str, Any], path: Path, text: str, prefix: str = ""):
        self.data, self.path, self.text, self.prefix = data, path, text, prefix

    def error(self, key: str, message: str) -> ProblemError:
        return ProblemError(self.path, message, self.prefix + key, line_of(self.text, key))

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...,
            check: Callable[[Any], bool] | None = None, expect: str = "") -> Any:
        if key not in self.data:
            if default is ...:
                raise self.error(key, "is required")
            return default
        value = self.data[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or isinstance(value, bool) and kind in (int, float):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.error(key, f"must be {expect or names}, got {type(value).__name__} {value!r}")
        if check is not None and not check(value):
            raise self.error(key, f"must be {expect}, got {value!r}")
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        values = self.get(key, list, [])
        if not all(isinstance(v, str) for v in values):
            raise self.error(key, "must be a list of strings")
        return tuple(values)

    def shapes(self, key: str) -> tuple[tuple[int, ...], ...]:
        values = self.get(key, list, [])
        ok = all(isinstance(s, list) and s and all(isinstance(d, int) and d > 0 for d in s) for s in values)
        if not ok:
            raise self.error(key, "must be a list of shapes, e.g. [[1024], [7, 3]]")
        return tuple(tuple(s) for s in values)


def shared_fields(fields: Fields, slug: str) -> dict[str, Any]:
    """The fields both formats have (codestar's names)."""
    return dict(
        slug=slug,
        title=fields.get("title", str),
        entry_point=fields.get("entry_point", str, check=str.isidentifier, expect="a Python identifier"),
        difficulty=fields.get("difficulty", str, ""),
        category=fields.get("category", str, ""),
        tags=fields.strings("tags"),
        limits=Limits(
            time_s=fields.get("time_limit", float, Limits.time_s, lambda v: v > 0, "a positive number of seconds"),
            memory_mb=fields.get("memory_limit_mb", int, Limits.memory_mb, lambda v: v > 0, "a positive number of MiB"),
            gpu_memory_mb=fields.get("gpu_memory_limit_mb", int, Limits.gpu_memory_mb, lambda v: v > 0,
                                     "a positive number of MiB"),
            compile_s=fields.get("compile_allowance", float, None, lambda v: v >= 0, "a number of seconds >= 0"),
        ),
        atol=fields.get("atol", float, 1e-4, lambda v: v >= 0, "a number >= 0"),
        rtol=fields.get("rtol", float, 1e-4, lambda v: v >= 0, "a number >= 0"),
        forbidden_modules=fields.strings("forbidden_modules"),
        forbidden_calls=fields.strings("forbidden_calls"),
    )

