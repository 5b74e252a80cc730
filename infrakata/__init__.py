"""infrakata's Python API: grade solutions from your own process (an RL trainer's reward function, an eval
script, a notebook) over one warm worker pool, with the results `kata run --json` prints. docs/API.md.

    from infrakata import Grader

    with Grader() as grader:
        results = grader.grade_many(sources, problem="adam-optimizer-memory-bytes")

The names are imported on first use: every `kata` command and the sandbox's own processes import this
package first, and must not pay for the API's imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from infrakata.api import BadArgument, CannotGrade, Grader, KataError, Result, Source

__all__ = ["BadArgument", "CannotGrade", "Grader", "KataError", "Result", "Source"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from infrakata import api

        return getattr(api, name)
    raise AttributeError(f"module 'infrakata' has no attribute {name!r}")
