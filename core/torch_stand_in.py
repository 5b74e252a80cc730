"""torch in a torch-free worker: a stand-in, and in the grading process, torch imported at its first read.

Many solutions import torch and never use it: codestar's boilerplate (`import torch`, `import torch.nn as
nn`, `import torch.nn.functional as F`), or a learner's habit at the top of a scalar kata. Where nothing
seems to read those names (static.runs_without_torch, a guess that decides speed only), the run gets a
worker from the zygote that never imported torch (SolutionSpec.torch_free), whose fork and exit cost a
millisecond instead of twenty. There, each `import torch...` binds a stand-in. Code that reaches torch anyway
(a frame's globals, a helper module loaded by path, a tensor among the inputs) meets the stand-in, which
marks the worker (`met`): the worker answers that the run needs torch, and the grader gives the run to a
worker with torch (core/grading/calls.py SolutionCalls). A real import there would exceed the memory limit
of a worker measured without torch; so the guess can cost time, never a verdict.

Trusted code run in the grading process (a codestar problem's reference_code and test_code) carries the same
boilerplate; there, `builtins_with_lazy_torch()` binds modules that import the real torch at their first
read, so the process is spared torch's import (two seconds of a core) unless the code does read it.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
import types
from collections.abc import Sequence
from typing import Any

ROOT = "torch"


class TorchNotLoaded(RuntimeError):
    """A stand-in was read in a torch-free worker (see the module's docstring)."""


_met = False  # a stand-in was read in this process: its run is given to a worker with torch


def met() -> bool:
    """Whether this torch-free worker's code has reached torch (whatever it did with the error after)."""
    return _met


class _StandIn(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        global _met
        if name.startswith("__") and name.endswith("__"):  # probed with a default (the import machinery's)
            raise AttributeError(name)
        _met = True
        raise TorchNotLoaded(f"'{self.__name__}.{name}' was read in a worker without torch; the run is given to "
                             f"a worker with torch")


class _LazyModule(types.ModuleType):
    """A torch module in the grading process, imported at its first read (trusted code only)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return getattr(importlib.import_module(self.__name__), name)


class _Loader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _StandIn(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != ROOT and not fullname.startswith(ROOT + "."):
            return None
        # Found where the real one is, so that a module torch does not have fails to import as it would.
        real = importlib.machinery.PathFinder.find_spec(fullname, path)
        if real is None:
            return None
        spec = importlib.machinery.ModuleSpec(fullname, _Loader(), origin=real.origin,
                                              is_package=real.submodule_search_locations is not None)
        spec.submodule_search_locations = real.submodule_search_locations  # where its submodules are found
        return spec


_FINDER = _Finder()
_LAZY: dict[str, _LazyModule] = {}
_LAZY_LOCK = threading.Lock()  # the grading process grades on several threads
_IMPORT = builtins.__import__


def _lazy(name: str) -> _LazyModule:
    """The lazy module for torch or one of its modules, bound to its parent as the import system binds it
    (`import torch.nn as nn` reads `nn` from torch)."""
    with _LAZY_LOCK:
        module = _LAZY.get(name)
        if module is None:
            module = _LAZY[name] = _LazyModule(name)
    parent, _, child = name.rpartition(".")
    if parent:
        vars(_lazy(parent)).setdefault(child, module)
    return module


def _import_lazily(name: str, globals: Any = None, locals: Any = None, fromlist: Sequence[str] = (),
                   level: int = 0) -> types.ModuleType:
    # `from torch import tensor` reads its names at once: imported now, as torch once imported is.
    if level or fromlist or (name != ROOT and not name.startswith(ROOT + ".")) or loaded_torch() is not None:
        return _IMPORT(name, globals, locals, fromlist, level)
    _lazy(name)
    return _lazy(ROOT)


def builtins_with_lazy_torch() -> dict[str, Any]:
    """`__builtins__` for trusted code run in the grading process: see the docstring."""
    return {**vars(builtins), "__import__": _import_lazily}


def install() -> None:
    """In a worker without torch, before any of the run's code loads."""
    if ROOT not in sys.modules and _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def loaded_torch() -> Any:
    """torch where it is really imported, else None: a value is a tensor only then. While another thread
    imports it, sys.modules already holds the half-made module (no `Tensor` yet): that is not imported either,
    and no tensor exists yet, since whatever makes one waits, in its own `import torch`, for the import to end."""
    torch = sys.modules.get(ROOT)
    importing = getattr(getattr(torch, "__spec__", None), "_initializing", False)
    return None if torch is None or isinstance(torch, _StandIn) or importing else torch


def is_tensor(value: Any) -> bool:
    """Whether `value` is a tensor, without importing torch (where it is not imported, nothing is)."""
    torch = loaded_torch()
    return torch is not None and isinstance(value, torch.Tensor)


def tensors_in(value: Any) -> list[Any]:
    """The tensors in `value` and its tuples, lists and dicts."""
    if isinstance(value, (tuple, list)):
        return [tensor for item in value for tensor in tensors_in(item)]
    if isinstance(value, dict):
        return tensors_in(list(value.values()))
    return [value] if is_tensor(value) else []


def tensor_bytes(value: Any) -> int:
    """The bytes of the tensors in `value` and its tuples, lists and dicts."""
    return sum(int(tensor.numel() * tensor.element_size()) for tensor in tensors_in(value))


def holds_tensor(value: Any) -> bool:
    """Whether a tensor lies in `value` or its tuples, lists and dicts: inputs that only a worker with torch can
    read (what other objects hold is found in the worker, core/grading/calls.py SolutionCalls)."""
    if isinstance(value, (tuple, list)):
        return any(map(holds_tensor, value))
    if isinstance(value, dict):
        return any(map(holds_tensor, value.values()))
    return is_tensor(value)
