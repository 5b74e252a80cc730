"""Tripwires: what a kata forbids, refused at run time in the solution's worker; Triton launches counted.

Every dotted name of the problem's `forbidden_calls` that names an object is replaced, where it is
defined, by a function that raises ForbiddenError, so every alias trips it too; `[grading] autograd =
false` refuses every backward pass, and `[grading] triton_launch` counts each call's launches.
Installed once per worker, before the solution loads (child.main). A teaching guard, not a boundary:
docs/GRADING.md (Tripwires) and docs/SECURITY.md (Teaching guards, not boundaries).
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NoReturn


class ForbiddenError(ImportError):
    """A forbidden module or call reached at run time."""


@dataclass(frozen=True)
class Target:
    """Where a dotted name's object lives: `owner.attribute` (a module, or a class for a method)."""

    name: str
    owner: Any
    attribute: str
    value: Any


def resolve(name: str) -> Target | None:
    """The object a dotted name of `forbidden_calls` names, or None when its first part is no module
    (`F.softmax`, `eval`: names for the static check and the guarded builtins). Raises LookupError when
    the module exists and the rest of the name does not: a misspelling, said by `kata check-problems`."""
    parts = name.split(".")
    if len(parts) < 2 or not all(part.isidentifier() for part in parts) or parts[0] == "builtins":
        return None  # builtins are the guarded builtins' (child.py), which the worker itself uses
    try:
        owner: Any = importlib.import_module(parts[0])
    except ImportError:
        return None
    for index, part in enumerate(parts[1:-1], 1):
        owner = _member(owner, part, ".".join(parts[:index + 1]), name)
    value = _member(owner, parts[-1], name, name)
    return Target(name, owner, parts[-1], value)


def _member(owner: Any, attribute: str, dotted: str, name: str) -> Any:
    if hasattr(owner, attribute):
        return getattr(owner, attribute)
    if isinstance(owner, ModuleType):
        try:
            return importlib.import_module(dotted)  # a submodule not imported yet
        except ImportError:
            pass
    raise LookupError(f"'{name}' names nothing: {dotted} does not exist")


def wirable(target: Target) -> bool:
    """Whether the wire can be set: on a module, or on a class defined in Python (not on torch._C's types)."""
    owner = target.value if inspect.isclass(target.value) else target.owner
    return not inspect.isclass(owner) or bool(owner.__flags__ & _HEAP_TYPE and not owner.__flags__ & _IMMUTABLE)


_HEAP_TYPE, _IMMUTABLE = 1 << 9, 1 << 8  # Py_TPFLAGS_HEAPTYPE, Py_TPFLAGS_IMMUTABLETYPE


# Why a name is refused where it is not the kata's own rule, by the name or the module it is in: said
# wherever the refusal is (the static check, the import guard, the tripwire).
WHY_REFUSED = {
    "torch.utils.cpp_extension": "compiling C++ or CUDA (load_inline, load) is not available in the sandbox: a "
                                 "worker's view of the machine holds no compiler (/usr/bin) and no headers "
                                 "(/usr/include), and the grader runs no build outside it; write the kernel in "
                                 "Triton (on the CPU it runs through Triton's interpreter) or in PyTorch",
}


def why_refused(name: str) -> str:
    """': <why>' for a name (or a name in a module) that WHY_REFUSED explains, else ''."""
    return next((f": {why}" for refused, why in WHY_REFUSED.items()
                 if name == refused or name.startswith(refused + ".")), "")


_trusted_depth = 0  # above 0 while trusted code runs in the worker (trusted())


@contextlib.contextmanager
def trusted() -> Iterator[None]:
    """The tripwires let calls through while trusted code runs in the solution's worker: the benchmark's
    input maker (cases.py's make_inputs) may call what the kata forbids the solution. Like every tripwire,
    a teaching guard, not a boundary: the solution shares the process."""
    global _trusted_depth
    _trusted_depth += 1
    try:
        yield
    finally:
        _trusted_depth -= 1


def refusal(name: str, original: Callable[..., Any] | None = None) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        if _trusted_depth and original is not None:
            return original(*args, **kwargs)
        raise ForbiddenError(f"call to '{name}' is forbidden in this problem{why_refused(name)}")
    return refuse


def _wire(target: Target) -> None:
    """Replace the object where it is defined (a class: its constructor), so that every alias trips."""
    owner, attribute, value = target.owner, target.attribute, target.value
    if inspect.isclass(value):
        owner, attribute, value = value, "__init__", value.__init__
    tripped = refusal(target.name, value)
    tripped.__name__ = tripped.__qualname__ = getattr(value, "__name__", attribute)
    tripped.__doc__ = getattr(value, "__doc__", None)
    if inspect.isclass(owner) and isinstance(inspect.getattr_static(owner, attribute, None), staticmethod):
        setattr(owner, attribute, staticmethod(tripped))
    else:
        setattr(owner, attribute, tripped)


class _RefusingEngine:
    """torch's autograd engine with backward passes refused; everything else (callbacks) passes through."""

    def __init__(self, engine: Any):
        self._engine = engine

    def run_backward(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise ForbiddenError("autograd is off in this problem: no backward pass may run (Tensor.backward, "
                             "torch.autograd.grad, torch.func and torch.autograd.functional all run one); "
                             "derive the gradients yourself")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)


def _autograd_off() -> None:
    from torch.autograd.variable import Variable

    Variable._execution_engine = _RefusingEngine(Variable._execution_engine)  # type: ignore[assignment]


_launches = 0


def _counting(run: Callable[..., Any]) -> Callable[..., Any]:
    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        global _launches
        if not kwargs.get("warmup"):
            _launches += 1
        return run(self, *args, **kwargs)
    return counted


def _count_launches() -> None:
    """Every launch, `kernel[grid](...)` and an autotuner's or heuristics' alike, ends in `run` of a compiled
    JITFunction (CUDA) or, through the interpreter (TRITON_INTERPRET=1, on the CPU), an InterpretedFunction."""
    try:
        from triton.runtime.jit import JITFunction
    except ImportError:
        return  # no Triton here: nothing can launch, and a kernel problem says why when its solution imports it
    kernels: list[type] = [JITFunction]
    if os.environ.get("TRITON_INTERPRET") == "1":
        from triton.runtime.interpreter import InterpretedFunction

        kernels.append(InterpretedFunction)
    for cls in kernels:
        cls.run = _counting(cls.run)  # type: ignore[attr-defined]


def install(calls: tuple[str, ...], autograd: bool = True, count_launches: bool = False) -> None:
    """Arm this worker's tripwires (child.main, before the solution loads)."""
    for name in calls:
        try:
            target = resolve(name)
        except LookupError:
            continue  # `kata check-problems` reports it; the static check still sees the name
        if target is not None and wirable(target):
            _wire(target)
    if not autograd:
        _autograd_off()
    if count_launches:
        _count_launches()


def launches() -> int:
    """The Triton launches since the last call to this function."""
    global _launches
    count, _launches = _launches, 0
    return count
