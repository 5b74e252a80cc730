"""Static checks with exact positions: syntax errors, forbidden modules and forbidden calls.

The sandbox refuses the same modules and calls again at run time (dynamic imports, aliases).
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Iterable
from pathlib import Path

from infrakata.core import pysource
from infrakata.core.grading.results import Finding
from infrakata.core.sandbox.tripwires import why_refused


def _column(lines: list[str], line: int, byte_offset: int) -> int:
    """ast columns are UTF-8 byte offsets; editors want characters. 1-based."""
    if not 1 <= line <= len(lines):
        return byte_offset + 1
    return len(lines[line - 1].encode("utf-8")[:byte_offset].decode("utf-8", "replace")) + 1


def _finding(lines: list[str], node: ast.expr | ast.stmt | ast.alias, code: str, message: str) -> Finding:
    end_line = node.end_lineno or node.lineno
    end_offset = node.end_col_offset if node.end_col_offset is not None else node.col_offset + 1
    return Finding(node.lineno, _column(lines, node.lineno, node.col_offset),
                   end_line, _column(lines, end_line, end_offset), code, message)


def syntax_findings(source: str) -> list[Finding]:
    try:
        pysource.tree(source)
    except SyntaxError as error:
        line = error.lineno or 1
        # SyntaxError offsets are already 1-based character columns.
        column = max(error.offset or 1, 1)
        end_line = error.end_lineno or line
        end_column = error.end_offset if error.end_offset and (error.end_offset > column or end_line != line) \
            else column + 1
        return [Finding(line, column, end_line, end_column, "syntax-error", f"SyntaxError: {error.msg}")]
    except ValueError as error:  # e.g. source with NUL bytes
        return [Finding(1, 1, 1, 2, "syntax-error", f"cannot compile: {error}")]
    return []


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _forbidden_module(name: str, forbidden: Iterable[str]) -> str | None:
    for module in forbidden:
        if name == module or name.startswith(module + "."):
            return module
    return None


def forbidden_findings(source: str, modules: Iterable[str], calls: Iterable[str]) -> list[Finding]:
    """Forbidden imports and calls (or references to forbidden callables) in a parseable source."""
    tree = pysource.tree(source)
    lines = source.splitlines()
    modules, calls = tuple(modules), set(calls)
    call_targets: set[int] = set()
    names: list[ast.Name] = []  # a forbidden name read, other than as a call's target (known once the walk is over)
    findings: list[Finding] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                module = _forbidden_module(alias.name, modules)
                if module:
                    findings.append(_finding(lines, alias, "forbidden-module",
                                             f"module '{module}' is forbidden in this problem; remove the import"
                                             f"{why_refused(module)}"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            module = _forbidden_module(node.module, modules)
            if module:
                findings.append(_finding(lines, node, "forbidden-module",
                                         f"module '{module}' is forbidden in this problem; remove the import"
                                         f"{why_refused(module)}"))
        elif isinstance(node, ast.Call):
            call_targets.add(id(node.func))
            name = _dotted(node.func)
            if name and (name in calls or name.startswith("builtins.") and name[len("builtins."):] in calls):
                findings.append(_finding(lines, node.func, "forbidden-call",
                                         f"call to '{name}' is forbidden in this problem{why_refused(name)}"))
        elif isinstance(node, ast.Name) and node.id in calls and isinstance(node.ctx, ast.Load):
            names.append(node)
    for read in names:
        if id(read) not in call_targets:
            findings.append(_finding(lines, read, "forbidden-call",
                                     f"'{read.id}' is forbidden in this problem (even as a reference)"))
    return sorted(findings, key=lambda f: (f.line, f.column))


def check(source: str, modules: Iterable[str], calls: Iterable[str]) -> list[Finding]:
    return syntax_findings(source) or forbidden_findings(source, modules, calls)


def find_entry_point(source: str, name: str) -> tuple[int, int] | None:
    """(line, column) of the name in the top-level `def name` (or `class name`, a KernelBench solution's
    ModelNew), 1-based; None if absent or unparseable."""
    try:
        tree = pysource.tree(source)
    except (SyntaxError, ValueError):
        return None
    lines = source.splitlines()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            keyword = "class" if isinstance(node, ast.ClassDef) else "def"
            line_text = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
            column = line_text.find(name, line_text.find(keyword)) if keyword in line_text else -1
            return node.lineno, (column + 1 if column >= 0 else _column(lines, node.lineno, node.col_offset))
    return None


_IMPORTS_BY_STRING = frozenset({"__import__", "import_module"})
# What reads a module or its names by a string: with them, a module that an import binds may be read unseen.
_NAMES_BY_STRING = frozenset({"globals", "locals", "vars", "eval", "exec"})
_MODULES_BY_STRING = frozenset({"sys", "importlib", "gc", "inspect", "builtins"})


@functools.lru_cache(maxsize=512)
def runs_without_torch(source: str) -> bool:
    """Whether the source runs at full speed in a worker without torch (SolutionSpec.torch_free): every
    import it makes by name (`import`, `from ... import`, at any depth) is of Python's standard library, or
    an `import torch[.sub] [as name]` whose name is never read (boilerplate: such a worker binds a stand-in,
    core/torch_stand_in.py). False for a source that does not parse, imports relatively or imports by a
    string (`__import__`, `import_module`), whose module a torch-free worker could not afford under its
    memory limit; and for one that imports torch and could read it by a string (`globals()`, `sys.modules`)."""
    try:
        tree = pysource.tree(source)
    except (SyntaxError, ValueError):
        return False
    torch_names: set[str] = set()  # bound by `import torch...`
    read: set[str] = set()
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id in _IMPORTS_BY_STRING:
                return False
            if not isinstance(node.ctx, ast.Store):
                read.add(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in _IMPORTS_BY_STRING:
            return False
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.partition(".")[0]
                imported.add(top)
                if top == "torch":
                    torch_names.add(alias.asname or top)
                elif top not in sys.stdlib_module_names:
                    return False
        elif isinstance(node, ast.ImportFrom):
            if node.level or node.module is None or node.module.partition(".")[0] not in sys.stdlib_module_names:
                return False
            imported.add(node.module.partition(".")[0])
    return not torch_names or not (read & (torch_names | _NAMES_BY_STRING) or imported & _MODULES_BY_STRING)


# Solutions kata does not run, by what marks them, and what would run them (LeetGPU's languages).
_FOREIGN_FILES = {".cu": ("CUDA C++", "nvcc and an NVIDIA GPU"), ".cuh": ("CUDA C++", "nvcc and an NVIDIA GPU"),
                  ".mojo": ("Mojo", "the Mojo toolchain and a GPU it supports"),
                  ".\U0001f525": ("Mojo", "the Mojo toolchain and a GPU it supports")}
_FOREIGN_IMPORTS = {"cutlass": ("CuTe DSL", "CUTLASS's Python DSL on an NVIDIA GPU"),
                    "jax": ("JAX", "JAX with its GPU backend")}


def foreign_language(path: Path | str, source: str) -> str | None:
    """Why a solution in a language kata does not run is refused (CUDA C++, Mojo, CuTe, JAX): the message, naming
    the language and what would run it; None for a Python solution in Triton or PyTorch."""
    found = _FOREIGN_FILES.get(Path(path).suffix.lower())
    if found is None:
        try:
            tree = pysource.tree(source)
        except (SyntaxError, ValueError):
            return None
        # The module's own imports: a function may import JAX for a reference beside the torch one (LeetGPU's
        # challenges have a `reference_impl_jax`), and a solution that does still runs.
        modules = {alias.name.partition(".")[0] for node in tree.body if isinstance(node, ast.Import)
                   for alias in node.names}
        modules |= {node.module.partition(".")[0] for node in tree.body
                    if isinstance(node, ast.ImportFrom) and node.module and not node.level}
        found = next((_FOREIGN_IMPORTS[m] for m in _FOREIGN_IMPORTS if m in modules), None)
    if found is None:
        return None
    language, runs_it = found
    return (f"{path}: a {language} solution, which kata does not run: it grades Python solutions in Triton or "
            f"PyTorch (on the CPU through Triton's interpreter, or on your GPU). {language} needs {runs_it}: grade it "
            f"on LeetGPU's own runner, or start from the Triton or PyTorch starter (`kata start <slug>`)")
