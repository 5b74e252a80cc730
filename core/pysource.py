"""Python source parsed to a syntax tree, one thread at a time.

CPython (3.11 here) counts the depth of the tree it is building in state that every thread shares: a
thread switch in the middle of a build (a finalizer the collector runs) makes another thread's parse fail
with "SystemError: AST constructor recursion depth mismatch". `kata grade` parses on several threads at
once, and under load a correct solution came back could_not_grade (tests/test_pysource.py).
"""

from __future__ import annotations

import ast
import functools
import threading

_ONE_AT_A_TIME = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """ast.parse, serialised; raises SyntaxError (and ValueError for a NUL byte) as ast.parse does."""
    with _ONE_AT_A_TIME:
        return ast.parse(source, filename)


@functools.lru_cache(maxsize=64)
def tree(source: str) -> ast.Module:
    """parse's tree of `source`, made once and shared by every reader of the same source (a grading reads
    the solution's five times): never change it. Raises as parse does (an error is not kept)."""
    return parse(source)


def top_level_functions(source: str) -> set[str]:
    """The names of the functions `source` defines at module level; none where it does not parse."""
    try:
        module = tree(source)
    except (SyntaxError, ValueError):
        return set()
    return {n.name for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
