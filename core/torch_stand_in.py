"""torch in a torch-free worker: a stand-in that imports the real module at its first read.

Many solutions import torch and never use it: codestar's boilerplate (`import torch`, `import torch.nn as
nn`, `import torch.nn.functional as F`), or a learner's habit at the top of a scalar kata. Where nothing
reads those names (static.runs_without_torch), the run gets a worker from the zygote that never imported
torch (SolutionSpec.torch_free), whose fork and exit cost a millisecond instead of twenty. There, each
`import torch...` binds a stand-in. A solution that reaches one anyway (through a frame's globals, say) is
told why torch is not there and how to have it: a real import would exceed the memory limit of a worker
measured without torch.

Trusted code run in the grading process (a codestar problem's reference_code and test_code) carries the same
boilerplate; where it never reads those names, it runs with `builtins_without_torch()`, whose `__import__`
binds the same stand-ins, and the process is spared torch's import: two seconds of a core, and a batch of
scalar katas shares its cores with it.
"""

from __future__ import annotations

import builtins
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Sequence
from typing import Any

ROOT = "torch"


class TorchNotLoaded(RuntimeError):
    """A stand-in was read (see the module's docstring)."""


class _StandIn(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):  # probed with a default (the import machinery's)
            raise AttributeError(name)
        raise TorchNotLoaded(
            f"'{self.__name__}.{name}' was read another way than through a name its import binds: this solution "
            f"was graded without torch, because it never reads those names. Read it through that name (as "
            f"`{self.__name__}.{name}`), and it is graded with torch")


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
_STAND_INS: dict[str, _StandIn] = {}
_IMPORT = builtins.__import__


def _stand_in(name: str) -> _StandIn:
    """The stand-in for torch or one of its modules, bound to its parent as the import system binds it (`import
    torch.nn as nn` reads `nn` from torch)."""
    module = _STAND_INS.get(name)
    if module is None:
        module = _STAND_INS.setdefault(name, _StandIn(name))
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(_stand_in(parent), child, module)
    return module


def _import_without_torch(name: str, globals: Any = None, locals: Any = None, fromlist: Sequence[str] = (),
                          level: int = 0) -> types.ModuleType:
    if level or (name != ROOT and not name.startswith(ROOT + ".")):
        return _IMPORT(name, globals, locals, fromlist, level)
    module = _stand_in(name)
    return module if fromlist else _stand_in(ROOT)


def builtins_without_torch() -> dict[str, Any]:
    """`__builtins__` for trusted code that only binds torch (static.runs_without_torch): see the docstring."""
    return {**vars(builtins), "__import__": _import_without_torch}


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
