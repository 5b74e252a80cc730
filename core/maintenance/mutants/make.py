"""Making mutants of a reference: small wrong versions that some case must reject.

Six operators, each a change a learner's copy of the reference could make and still look right: a
defaulted parameter pinned to its default, a parameter pinned to its value in the first case, a numeric
constant perturbed, an upcast removed, a comparison's boundary moved (`>` and `>=`), a rounding turned
(ceil and floor). Each mutant is the whole module, changed at one place and
unparsed; its label says where and what, and is what problem.toml's `[[mutants.equivalent]]` names.
problems/FORMAT.md (Mutants) describes each operator for authors.
"""

from __future__ import annotations

import ast
import copy
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from infrakata.core import pysource

FLOAT_DTYPES = frozenset({"float32", "float", "float64", "double"})
# Calls whose dtype= says what to create, not what to compute in: float32 is their default already.
FACTORIES = frozenset({"zeros", "ones", "full", "empty", "tensor", "as_tensor", "arange", "linspace", "eye",
                       "rand", "randn", "randint"})
DEFAULT_FLOAT_DTYPES = frozenset({"float32", "float"})


@dataclass(frozen=True)
class Mutant:
    line: int  # 1-based, in the reference
    function: str  # the enclosing function, or "<module>"
    change: str  # what changed, e.g. "constant 1e-6 -> 2e-06"
    source: str  # the whole mutated module

    @property
    def what(self) -> str:
        """The label a problem uses to declare this mutant equivalent: stable when lines move."""
        return f"{self.function}: {self.change}"

    def where(self, filename: str) -> str:
        return f"{filename}:{self.line}: {self.what}"


def make_mutants(source: str, entry_point: str = "", first_case: tuple[tuple[Any, ...], Mapping[str, Any]] = ((), {})
                 ) -> list[Mutant]:
    """Every mutant of a module, in source order, without duplicates (two changes giving the same
    module are one mutant). `first_case` is the first case's (args, kwargs): the entry point's
    parameters that get plain values there (numbers, strings, bools, None, tuples and lists of them)
    are pinned to them."""
    tree = pysource.parse(source)
    original = ast.unparse(tree)
    seen = {original}
    made = []
    occurrences: dict[tuple[str, str], int] = {}
    for site in _sites(tree, source, entry_point, first_case):
        mutated = copy.deepcopy(tree)
        site.apply(mutated)
        text = ast.unparse(ast.fix_missing_locations(mutated))
        if text in seen:
            continue
        seen.add(text)
        # The same change twice in one function (two `1.0`s) gets a number, so that each label names one mutant.
        count = occurrences[site.function, site.change] = occurrences.get((site.function, site.change), 0) + 1
        change = site.change if count == 1 else f"{site.change} (occurrence {count})"
        made.append(Mutant(site.line, site.function, change, text))
    return made


@dataclass
class _Site:
    path: tuple[str | int, ...]  # how to reach the node from the module: field names and list indices
    line: int
    function: str
    change: str
    apply: Callable[[ast.Module], None]  # makes the change in a copy of the module


def _replace(tree: ast.Module, path: tuple[str | int, ...], new: ast.AST) -> None:
    parent = _find(tree, path[:-1])
    if isinstance(path[-1], int):
        parent[path[-1]] = new
    else:
        setattr(parent, path[-1], new)


def _find(tree: ast.AST, path: tuple[str | int, ...]) -> Any:
    node: Any = tree
    for step in path:
        node = node[step] if isinstance(step, int) else getattr(node, step)
    return node


def _walk(node: ast.AST, path: tuple[str | int, ...] = (), function: str = "<module>"
          ) -> Iterator[tuple[ast.AST, tuple[str | int, ...], str]]:
    """Every node with its path and enclosing function, in source order."""
    yield node, path, function
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        function = node.name
    for name, value in ast.iter_fields(node):
        if name in ("annotation", "returns"):  # type hints are not behaviour
            continue
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield from _walk(item, (*path, name, index), function)
        elif isinstance(value, ast.AST):
            yield from _walk(value, (*path, name), function)


def _sites(tree: ast.Module, source: str, entry_point: str, first_case: tuple[tuple[Any, ...], Mapping[str, Any]]
           ) -> Iterator[_Site]:
    for node, path, function in _walk(tree):
        value = _number(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _pins(node, path, source, entry_point, first_case)
        elif isinstance(node, ast.expr) and value is not None and not _negated(tree, path):
            yield _constant(node, value, path, function, source)
        elif isinstance(node, ast.Call):
            yield from _upcasts(node, path, function, source)
            yield from _roundings(node, path, function)
        elif isinstance(node, ast.Compare):
            yield from _boundaries(node, path, function)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            yield from _ceil_divisions(node, path, function)


def _number(node: ast.AST) -> int | float | None:
    """The value of a numeric literal, `-c` included (bools are not numbers here)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    return None


def _negated(tree: ast.Module, path: tuple[str | int, ...]) -> bool:
    """Whether this node is the operand of a unary minus (that whole `-c` is the site)."""
    if not path or path[-1] != "operand":
        return False
    parent = _find(tree, path[:-1])
    return isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub)


def _perturbed(value: int | float) -> int | float:
    if isinstance(value, int):
        return value + 1
    return value * 2 if value != 0 and math.isfinite(value) else 1.0


def _constant(node: ast.expr, value: int | float, path: tuple[str | int, ...], function: str, source: str) -> _Site:
    new = _perturbed(value)
    written = ast.get_source_segment(source, node) or repr(value)

    def apply(tree: ast.Module) -> None:
        _replace(tree, path, ast.Constant(new))

    return _Site(path, node.lineno, function, f"constant {written} -> {new!r}", apply)


def _pins(node: ast.FunctionDef | ast.AsyncFunctionDef, path: tuple[str | int, ...], source: str,
          entry_point: str, first_case: tuple[tuple[Any, ...], Mapping[str, Any]]) -> Iterator[_Site]:
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: dict[str, ast.expr] = dict(zip([a.arg for a in positional[len(positional) - len(arguments.defaults):]],
                                             arguments.defaults, strict=True))
    defaults |= {a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d is not None}
    for name, default in defaults.items():
        text = ast.get_source_segment(source, default) or ast.unparse(default)
        yield _pin(node, path, name, default, f"parameter {name} pinned to its default {text}")
    if node.name != entry_point:
        return
    args, kwargs = first_case
    names = [a.arg for a in positional] + [a.arg for a in arguments.kwonlyargs]
    bound = dict(zip([a.arg for a in positional], args, strict=False)) | dict(kwargs)
    for name, value in ((n, bound[n]) for n in names if n in bound):
        expression = _literal(value)
        if expression is not None:
            yield _pin(node, path, name, expression,
                       f"parameter {name} pinned to {ast.unparse(expression)} (its value in the first case)")


def _pin(node: ast.FunctionDef | ast.AsyncFunctionDef, path: tuple[str | int, ...], name: str, value: ast.expr,
         change: str) -> _Site:
    first = node.body[0] if node.body else None
    docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
        and isinstance(first.value.value, str)

    def apply(tree: ast.Module) -> None:
        _find(tree, path).body.insert(1 if docstring else 0,
                                      ast.Assign(targets=[ast.Name(name, ast.Store())], value=copy.deepcopy(value)))

    return _Site(path, node.lineno, node.name, change, apply)


def _literal(value: Any) -> ast.expr | None:
    """A plain value as an expression that recreates it, or None for anything else (tensors, modules)."""
    if isinstance(value, float) and not math.isfinite(value):
        return ast.Call(ast.Name("float", ast.Load()), [ast.Constant(repr(value))], [])
    if value is None or isinstance(value, (bool, int, float, str)):
        return ast.Constant(value)
    if isinstance(value, (tuple, list)) and len(value) <= 64:
        items = [_literal(v) for v in value]
        if any(i is None for i in items):
            return None
        elements: list[ast.expr] = [i for i in items if i is not None]
        return ast.Tuple(elements, ast.Load()) if isinstance(value, tuple) else ast.List(elements, ast.Load())
    return None


def _float_dtype(node: ast.expr | None) -> str | None:
    """`torch.float32`-like: the dtype's name, else None."""
    if isinstance(node, ast.Attribute) and node.attr in FLOAT_DTYPES:
        return node.attr
    return None


def _is_cast(node: ast.Call) -> bool:
    """`x.float()`, `x.double()`, `x.to(torch.float32)`, `x.to(dtype=torch.float64)` and the like."""
    func = node.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in ("float", "double"):
        return not node.args and not node.keywords
    if func.attr != "to" or len(node.args) + len(node.keywords) != 1:
        return False
    dtype = node.args[0] if node.args else node.keywords[0].value if node.keywords[0].arg == "dtype" else None
    return _float_dtype(dtype) is not None


def _upcasts(node: ast.Call, path: tuple[str | int, ...], function: str, source: str) -> Iterator[_Site]:
    func = node.func
    if _is_cast(node):
        assert isinstance(func, ast.Attribute)
        text = ast.get_source_segment(source, node) or ast.unparse(node)
        receiver = ast.get_source_segment(source, func.value) or ast.unparse(func.value)

        def unwrap(tree: ast.Module) -> None:
            _replace(tree, path, _find(tree, path).func.value)

        yield _Site(path, node.lineno, function, f"upcast removed: {text} -> {receiver}", unwrap)
        return
    callee = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    for index, keyword in enumerate(node.keywords):
        dtype = _float_dtype(keyword.value) if keyword.arg == "dtype" else None
        if dtype is None or (callee in FACTORIES and dtype in DEFAULT_FLOAT_DTYPES):
            continue

        def drop(tree: ast.Module, index: int = index) -> None:
            del _find(tree, path).keywords[index]

        shown = ast.get_source_segment(source, keyword.value) or dtype
        yield _Site(path, node.lineno, function, f"upcast removed: dtype={shown} dropped from {callee}()", drop)


# A boundary moved: the value exactly on it (a format's max, a capacity just filled) changes side.
BOUNDARIES: dict[type[ast.cmpop], tuple[type[ast.cmpop], str, str]] = {
    ast.Gt: (ast.GtE, ">", ">="), ast.GtE: (ast.Gt, ">=", ">"),
    ast.Lt: (ast.LtE, "<", "<="), ast.LtE: (ast.Lt, "<=", "<")}


def _boundaries(node: ast.Compare, path: tuple[str | int, ...], function: str) -> Iterator[_Site]:
    for index, op in enumerate(node.ops):
        if type(op) not in BOUNDARIES:
            continue
        moved, before, after = BOUNDARIES[type(op)]

        def apply(tree: ast.Module, index: int = index, moved: type[ast.cmpop] = moved) -> None:
            _find(tree, path).ops[index] = moved()

        yield _Site(path, node.lineno, function, f"boundary moved: {before} -> {after}", apply)


def _roundings(node: ast.Call, path: tuple[str | int, ...], function: str) -> Iterator[_Site]:
    """`math.ceil(x)` and `math.floor(x)` (and `torch.ceil`, `torch.floor`, `.ceil()`, `.floor()`) swapped."""
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in ("ceil", "floor"):
        return
    other = "floor" if func.attr == "ceil" else "ceil"

    def apply(tree: ast.Module) -> None:
        _find(tree, path).func.attr = other

    yield _Site(path, node.lineno, function, f"rounding turned: {func.attr} -> {other}", apply)


def _ceil_divisions(node: ast.UnaryOp, path: tuple[str | int, ...], function: str) -> Iterator[_Site]:
    """`-(-a // b)`, the integer ceiling of a / b, made the floor `a // b`."""
    inner = node.operand
    if not (isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.FloorDiv)
            and isinstance(inner.left, ast.UnaryOp) and isinstance(inner.left.op, ast.USub)):
        return

    def apply(tree: ast.Module) -> None:
        division = _find(tree, path).operand
        _replace(tree, path, ast.BinOp(division.left.operand, ast.FloorDiv(), division.right))

    yield _Site(path, node.lineno, function, "rounding turned: -(-a // b) -> a // b", apply)
