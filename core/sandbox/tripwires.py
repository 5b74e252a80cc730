"""Tripwires: what a kata forbids, refused at run time in the solution's worker; Triton launches counted.

Every dotted name of the problem's `forbidden_calls` that names an object is replaced, where it is
defined, by a function that raises ForbiddenError, so every alias trips it too; `[grading] autograd =
false` refuses every backward pass, `[grading] triton_launch` counts each call's launches, and
`[grading] eager = "views"` limits a call's own torch work outside its launches to allocation and views.
Installed once per worker, before the solution loads (child.main). A teaching guard, not a boundary:
docs/GRADING.md (Tripwires) and docs/SECURITY.md (Teaching guards, not boundaries).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import os
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import CodeType, FrameType, ModuleType
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
# A launch's own launches (an autotuner's benchmark of each config, a heuristics' kernel) are one launch of the
# call's: counted at the outermost `run` on each thread.
_inside_launch = threading.local()


def _counting(run: Callable[..., Any]) -> Callable[..., Any]:
    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        global _launches
        depth = getattr(_inside_launch, "depth", 0)
        if not depth and not kwargs.get("warmup"):
            _launches += 1
        _inside_launch.depth = depth + 1
        try:
            return run(self, *args, **kwargs)
        finally:
            _inside_launch.depth = depth
    return counted


def _kernel_classes() -> list[type]:
    """Every launch, `kernel[grid](...)` and an autotuner's or heuristics' alike, ends in `run` of a compiled
    JITFunction (CUDA) or, through the interpreter (TRITON_INTERPRET=1, on the CPU), an InterpretedFunction;
    an autotuner's or heuristics' `run` is around it. [] without Triton: nothing can launch, and a kernel
    problem says why when its solution imports it."""
    try:
        from triton.runtime.autotuner import Autotuner, Heuristics
        from triton.runtime.jit import JITFunction
    except ImportError:
        return []
    kernels: list[type] = [JITFunction, Autotuner, Heuristics]
    if os.environ.get("TRITON_INTERPRET") == "1":
        from triton.runtime.interpreter import InterpretedFunction

        kernels.append(InterpretedFunction)
    return kernels


def _count_launches() -> None:
    for cls in _kernel_classes():
        cls.run = _counting(cls.run)  # type: ignore[attr-defined]


# -- [grading] eager = "views" ------------------------------------------------------------------------------

# Outside a launch, what a call's own torch work may be besides views (every aten op that aliases its input:
# t, transpose, permute, view, reshape as a view, as_strided, unsqueeze, expand, slicing, split, detach, a
# tensor made from Python values) and metadata changes in place (set_, resize_): allocation, and constant
# fills. A fill depends on no input, so it computes no part of an answer, and a kernel may need one to start
# from (the zeros an atomic accumulation or a split-K reduction adds into).
_ALLOCATION = ("empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided", "empty_permuted",
               "zeros", "zeros_like", "new_zeros", "zero_", "ones", "ones_like", "new_ones",
               "full", "full_like", "new_full", "scalar_tensor")
# What a copy or a conversion is for, said with the refusal: the kernel reads the original where it lies.
_COPIES = dict.fromkeys(("clone", "copy_", "_copy_from", "_copy_from_and_resize"),
                        "a copy: pass the view, and let the kernel read it through its strides")
_COPIES["_to_copy"] = "a conversion: let the kernel convert what it loads (tl.load(...).to(tl.float32))"
_ON_THE_HOST = {"_local_scalar_dense": "Tensor.item"}  # aten's name -> the one a learner wrote
# Tensor methods that read a tensor's values into Python (no aten op: the dispatch mode never sees them).
# Printing reads them too (torch's formatting takes the modes off while it reads), and hands them back as text.
# torch._C.TensorBase's own numpy and tolist cannot be wired (an immutable C type): what a value read through them
# could make is refused where it lands, in an output no kernel wrote (core/sandbox/kernel_meter.py, on the CPU).
_HOST_READS = ("numpy", "tolist", "__array__", "__dlpack__", "__repr__", "__str__", "__format__")
# What takes a dispatch mode off, by its names in torch: refused while a call runs, unless torch calls it.
_OFF_SWITCHES = (("torch.utils._python_dispatch", ("_pop_mode", "_pop_mode_temporarily", "_disable_current_modes",
                                                   "_pop_torch_dispatch_stack")),
                 ("torch._C", ("_pop_torch_dispatch_stack", "_DisableTorchDispatch", "_ExcludeDispatchKeyGuard",
                               "ExcludeDispatchKeyGuard", "_SetExcludeDispatchKeyGuard", "_ForceDispatchKeyGuard",
                               "_dispatch_tls_set_dispatch_key_excluded")),
                 ("torch.utils._mode_utils", ("no_dispatch",)))
_THREADS = (("threading", "Thread", "start"), ("_thread", None, "start_new_thread"),
            ("_thread", None, "start_joinable_thread"))
_RULE = ("outside a launch, a call may only allocate tensors (torch.empty, zeros, full) and take views of them "
         "(t, view, as_strided, slicing); the kernel must compute the output")


# Who may ask torch for anything while a call runs: the code of these packages and modules, known by the files
# its frames run (a module's name is the solution's to set): torch's own (it works for whoever called it) and the
# worker's recording of the call, which formats its arguments as it begins (core/sandbox/trace.py, through
# core/values.py); and Triton's during a launch (the interpreter copies the arguments to the host and back, an
# autotuner restores them), known by its code objects, since a solution's function may claim Triton's file name
# (triton_code_objects).
_TRUSTED = {"torch": "torch", "recording": f"{__name__.rpartition('.')[0]}.trace",
            "formatting": f"{__name__.split('.')[0]}.core.values"}


def _operands(args: Any) -> str:
    import torch

    flat = [t for a in args for t in (a if isinstance(a, (list, tuple)) else (a,)) if isinstance(t, torch.Tensor)]
    shown = [f"{str(t.dtype).removeprefix('torch.')}[{', '.join(map(str, t.shape))}]" for t in flat[:3]]
    return ", ".join(shown) + (", ..." if len(flat) > 3 else "")


def _eager_refusal(what: str) -> ForbiddenError:
    return ForbiddenError(f"eager torch work outside a Triton kernel is not allowed in this problem ({what}): "
                          f"{_RULE}")


def _eager_guard() -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Arm `[grading] eager = "views"` in the solution's worker. -> what wraps the entry point (`guarded`).

    While a call of the entry point runs, its own torch work is allocation and views: a TorchDispatchMode,
    pushed for each call and popped after it, raises ForbiddenError on the line of any op that computes or
    copies tensor data, unless trusted code asked for it (_TRUSTED): a hook of the solution's or a kernel
    body run by the interpreter during a launch is the solution's code. What the mode cannot see is wired
    where torch defines it, to refuse while a call runs: the Tensor methods that read values into Python,
    the ways torch offers to take a mode off, and threads (a mode holds in its own thread only). A call
    that ends without the mode in place, as it was made, is refused. Its state lives in this closure, not in
    names of the module that a solution could rebind. A teaching guard, like every tripwire."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    getframe, refusal, operands = sys._getframe, _eager_refusal, _operands
    push, pop = torch._C._push_on_torch_dispatch_stack, torch._C._pop_torch_dispatch_stack
    depth, mode_at = torch._C._len_torch_dispatch_stack, torch._C._get_dispatch_stack_at
    allocation, copies, on_the_host = frozenset(_ALLOCATION), dict(_COPIES), dict(_ON_THE_HOST)
    inplace_view = torch.Tag.inplace_view
    places: dict[str, str] = {}
    for key, name in _TRUSTED.items():
        try:
            file = importlib.import_module(name).__file__ or ""
        except ImportError:  # no Triton here: nothing launches
            file = ""
        places[key] = os.path.dirname(file) + os.sep if file.endswith("__init__.py") else file or "\0"
    torch_dir, recording, formatting = (places[k] for k in ("torch", "recording", "formatting"))
    launching = [0]  # Triton launches under way (nested: an autotuner's run launches its kernel's)
    allowed: dict[Any, bool] = {}  # op -> may it run outside a launch (decided once per op)

    def trusted(frame: FrameType | None) -> bool:
        """Whether what `frame` asked torch for is trusted code's: by the first frame from it outward that is
        neither torch's nor the formatting of values."""
        while frame is not None and (frame.f_code.co_filename.startswith(torch_dir)
                                     or frame.f_code.co_filename == formatting):
            frame = frame.f_back
        file = frame.f_code.co_filename if frame is not None else ""
        # Triton's own code, by its code objects: a function of the solution's may claim Triton's file name.
        return file == recording or bool(launching[0]) and frame is not None and frame.f_code in triton_code


    def views_only(mode: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        ok = allowed.get(func)
        if ok is None:
            ok = allowed[func] = bool(func.is_view or func.overloadpacket.__name__ in allocation
                                      or str(func) == "aten.fill_.Scalar" or inplace_view in func.tags)
        if ok or trusted(getframe(1)):
            return func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        if name in on_the_host:
            raise refusal(f"{on_the_host[name]}: a tensor's value read on the host")
        raise refusal(f"aten.{name} on {operands(args)}" + (f", {copies[name]}" if name in copies else ""))

    def cannot_exit(mode: Any, *exc: object) -> None:
        raise refusal("the guard's dispatch mode exited by the solution")

    def new_mode() -> tuple[type, Any, Any]:
        """A mode, its class, and its handler as the class holds it (torch may wrap it, to keep Dynamo out)."""
        cls = type("EagerViewsOnly", (TorchDispatchMode,), {"__torch_dispatch__": views_only, "__exit__": cannot_exit})
        return cls, cls(), cls.__dict__["__torch_dispatch__"]

    current = [new_mode()]
    triton_code = triton_code_objects()
    enumerate_threads = threading.enumerate
    threads_before = frozenset(enumerate_threads())  # before the solution loads (child.main)

    def armed() -> bool:
        mode = current[0][1]
        return any(mode_at(i) is mode for i in range(depth()))

    def in_place(below: int) -> bool:
        cls, mode, handler = current[0]
        return (depth() == below + 1 and mode_at(below) is mode and type(mode) is cls
                and cls.__dict__.get("__torch_dispatch__") is handler and "__torch_dispatch__" not in vars(mode))

    def guarded(entry: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(entry)
        def call(*args: Any, **kwargs: Any) -> Any:
            # A thread the solution started before the call (at import) would work outside the mode, which holds
            # in the call's own thread only.
            if any(thread not in threads_before for thread in enumerate_threads() if thread.is_alive()):
                raise refusal("a thread the solution started is running: the guard watches the call's own thread")
            below = depth()
            push(current[0][1])
            launching[0] = 0
            try:
                return entry(*args, **kwargs)
            finally:
                intact = in_place(below)
                while depth() > below:  # the solution's own modes of this call go with it
                    pop(None)
                if not intact:
                    current[0] = new_mode()  # the next call's, as it was made
                    raise refusal("the guard's dispatch mode was taken off or changed during the call")
        return call

    def launch(run: Callable[..., Any]) -> Callable[..., Any]:
        def launched(kernel: Any, *args: Any, **kwargs: Any) -> Any:
            launching[0] += 1
            try:
                return run(kernel, *args, **kwargs)
            finally:
                launching[0] -= 1
        return launched

    def refusing(name: str, original: Callable[..., Any], why: str, read: bool) -> Callable[..., Any]:
        """`original`, unless the solution calls it during a call. Torch's own code may (printing a tensor
        takes the modes off while it formats, and reads its values), and Triton's; a read of values (`read`)
        is trusted code's where an op would be."""
        def refuse(*args: Any, **kwargs: Any) -> Any:
            caller = getframe(1)
            file = caller.f_code.co_filename
            if not armed() or file.startswith(torch_dir) or caller.f_code in triton_code or read and trusted(caller):
                return original(*args, **kwargs)
            raise refusal(f"{name}: {why}")
        refuse.__name__ = refuse.__qualname__ = getattr(original, "__name__", name)
        refuse.__doc__ = getattr(original, "__doc__", None)
        return refuse

    for cls in _kernel_classes():  # the autotuner's run around a kernel's too (its restore_value clones)
        cls.run = launch(cls.run)  # type: ignore[attr-defined]
    for name in _HOST_READS:
        setattr(torch.Tensor, name, refusing(f"Tensor.{name}", getattr(torch.Tensor, name),
                                             "a tensor's values read into Python", read=True))
    for module_name, names in _OFF_SWITCHES:
        module = importlib.import_module(module_name)
        for name in names:
            if hasattr(module, name):
                setattr(module, name, refusing(f"{module_name}.{name}", getattr(module, name),
                                               "it would take the guard off", read=False))
    for module_name, class_name, name in _THREADS:
        owner: Any = importlib.import_module(module_name)
        owner = getattr(owner, class_name) if class_name else owner
        if hasattr(owner, name):
            setattr(owner, name, refusing("a thread started", getattr(owner, name),
                                          "the guard watches the call's own thread", read=False))
    return guarded


@functools.cache
def triton_code_objects() -> frozenset[CodeType]:
    """Every code object of Triton's modules, and those nested in them: how the eager guard knows Triton's own
    frames (a file name is the solution's to claim). Made once, in the zygote (inherited by its forks)."""
    found: set[CodeType] = set()

    def add(code: CodeType) -> None:
        if code not in found:
            found.add(code)
            for constant in code.co_consts:
                if isinstance(constant, CodeType):
                    add(constant)

    for name, module in list(sys.modules.items()):
        if name != "triton" and not name.startswith("triton.") or module is None:
            continue
        for value in list(vars(module).values()):
            for member in [value, *(vars(value).values() if inspect.isclass(value) else ())]:
                function = getattr(member, "__func__", member)
                code = getattr(function, "__code__", None)
                if isinstance(code, CodeType) and getattr(function, "__module__", "").startswith("triton"):
                    add(code)
    return frozenset(found)


_guarded: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None


def guarded(entry: Callable[..., Any]) -> Callable[..., Any]:
    """The entry point as the worker calls it: under `[grading] eager = "views"`, each call guarded."""
    return entry if _guarded is None else _guarded(entry)


def install(calls: tuple[str, ...], autograd: bool = True, count_launches: bool = False,
            eager_views: bool = False) -> None:
    """Arm this worker's tripwires (child.main, before the solution loads)."""
    global _guarded
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
    if eager_views:
        _guarded = _eager_guard()


def launches_so_far() -> int:
    """The Triton launches counted since launches() last took the count (the benchmark's per-call count)."""
    return _launches


def launches() -> int:
    """The Triton launches since the last call to this function."""
    global _launches
    count, _launches = _launches, 0
    return count
