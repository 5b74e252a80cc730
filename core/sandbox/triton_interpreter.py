"""The Triton interpreter (TRITON_INTERPRET=1, kernels on the CPU), made cheaper for every kernel kata's save.

Triton's interpreter (3.x) patches `triton.language` for every device-function call it runs, and every
reduction is one (`tl.sum`, `tl.max`, `tl.cumsum` call a jitted combine function): each time, it scans
`triton.language`, `tl.tensor` and `tl.math` with `inspect.getmembers` to find the builtins to patch. A
kernel with a reduction in a loop pays that scan hundreds of times per launch: top-p sampling's binary
search spent 40% of its time there. The builtins never change, so here they are listed once per module;
what is patched, and when, is unchanged (an attribute already patched, or replaced, is left as it is, as
the scan left it). Likewise, the interpreter builds its table of NumPy dtypes (19 of them) at every cast,
load and comparison, hundreds of times per launch: here each answer is kept once found.

What remained was Triton's frontend building types at every op: each op's result makes a `block_type`
(unwrapping and validating its shape, formatting its name: a fifth of a kata's run) and a `tl.tensor` (a
constexpr per dimension and a Triton tuple of them, again: a seventh), and every broadcast compares shapes
by first making a Triton tuple of one. Here a block type is built once per (element type, shape) and each
type's tensor fields once per type, and a Triton tuple compared with ints compares the ints: the Triton
katas' model solutions take 28-31% less time in all (benchmarks/interpreter_builtins.py). Nothing in Triton
changes a type once built (only `__init__` sets its fields), a type is kept by the identity of its element
type (Triton asks `element_ty is tl.float16`), and every tensor still gets a shape of its own. Applied in
the zygote, so every worker and trusted worker forked from it has them.
"""

from __future__ import annotations

import inspect
import math
from typing import Any


def list_builtins_once() -> bool:
    """Replace the interpreter's scan with a listing made once per module. -> whether it was applied (False:
    a Triton whose interpreter differs from the one this was written for, left as it is)."""
    try:
        from triton.language import core
        from triton.runtime import interpreter
    except ImportError:
        return False
    scan, patch_attr = getattr(interpreter, "_patch_builtin", None), getattr(interpreter, "_patch_attr", None)
    if scan is None or patch_attr is None or getattr(scan, "lists_builtins_once", False) \
            or list(inspect.signature(scan).parameters) != ["pkg", "builder", "scope"]:
        return False
    builtins: dict[Any, list[tuple[str, Any]]] = {}  # by module (or class): its builtins, as first found

    def patch_builtins(pkg: Any, builder: Any, scope: Any) -> None:
        listed = builtins.get(pkg)
        if listed is None:
            listed = builtins[pkg] = [(name, member) for name, member in inspect.getmembers(pkg)
                                      if core.is_builtin(member)]
        for name, member in listed:
            if getattr(pkg, name, None) is member:  # else patched already (or replaced): the scan skipped it too
                patch_attr(pkg, name, member, builder, scope)

    patch_builtins.lists_builtins_once = True  # type: ignore[attr-defined]
    interpreter._patch_builtin = patch_builtins
    return True


def map_dtypes_once() -> bool:
    """Keep each scalar dtype's NumPy dtype once the interpreter's `_get_np_dtype` has answered it. -> whether
    it was applied (False: a Triton without that function, or one whose types differ, left as it is)."""
    try:
        from triton import language as tl
        from triton.runtime import interpreter
    except ImportError:
        return False
    find = getattr(interpreter, "_get_np_dtype", None)
    if find is None or getattr(find, "maps_dtypes_once", False) or \
            list(inspect.signature(find).parameters) != ["tt_dtype"]:
        return False
    pointer = find(tl.pointer_type(tl.float32))
    found: dict[Any, Any] = {}  # by scalar dtype

    def get_np_dtype(tt_dtype: Any) -> Any:
        element = tt_dtype.element_ty if isinstance(tt_dtype, tl.block_type) else tt_dtype
        if isinstance(element, tl.pointer_type):
            return pointer
        answer = found.get(element)
        if answer is None:
            answer = found[element] = find(element)
        return answer

    get_np_dtype.maps_dtypes_once = True  # type: ignore[attr-defined]
    interpreter._get_np_dtype = get_np_dtype
    return True


# Types are kept by the identity of the objects they were built from, and only while these tables are smaller
# than this: a launch makes new pointer types for its arguments, so a long-lived worker would grow them forever.
_MOST_TYPES_KEPT = 4096


def make_types_once() -> bool:
    """Build each block type (element type, shape) once and each tensor's type-derived fields once per type,
    instead of at every op. -> whether it was applied (False: a Triton whose `block_type` or `tensor` differ
    from the ones this was written for, left as it is)."""
    try:
        from triton.language import core
    except ImportError:
        return False
    block_type, tensor, constexpr, triton_tuple = core.block_type, core.tensor, core.constexpr, core.tuple
    build_block, build_tensor = block_type.__init__, tensor.__init__
    if getattr(build_block, "makes_types_once", False) or block_type.__new__ is not object.__new__ \
            or list(inspect.signature(build_block).parameters) != ["self", "element_ty", "shape"] \
            or list(inspect.signature(build_tensor).parameters) != ["self", "handle", "type"] \
            or tensor.__mro__[1].__init__ is not object.__init__ \
            or list(vars(block_type(core.float32, [2, 4]))) != ["element_ty", "shape", "numel", "name"] \
            or list(vars(tensor(None, core.float32))) != ["handle", "shape", "numel", "type", "dtype"]:
        return False
    blocks: dict[tuple[int, tuple[int, ...]], Any] = {}  # by (id of the element type, shape): kept alive here
    fields: dict[int, tuple[Any, Any, Any, Any]] = {}  # by id of the type: (the type, shape, numel, dtype)

    def block_key(element_ty: Any, shape: Any) -> tuple[int, tuple[int, ...]] | None:
        """What makes two block types the same: the very same element type (`x.dtype is tl.float16` is
        asked) and the same ints. None for a shape `block_type` would refuse, or unwrap to something else."""
        if not isinstance(shape, (list, triton_tuple)):
            return None
        dims = []
        for dim in shape:
            if isinstance(dim, constexpr):
                dim = dim.value
            if type(dim) is not int:  # a bool, a NumPy int, a nested list: built as Triton would, not kept
                return None
            dims.append(dim)
        return id(element_ty), (*dims,)

    def new_block(cls: type, *args: Any, **kwargs: Any) -> Any:
        if cls is block_type and len(args) == 2 and not kwargs:
            key = block_key(*args)
            built = None if key is None else blocks.get(key)
            if built is not None:
                return built
        return object.__new__(cls)

    def init_block(self: Any, element_ty: Any, shape: Any) -> None:
        if type(self) is block_type and vars(self):
            return  # kept from an earlier call with the same element type and shape: built already
        build_block(self, element_ty, shape)
        key = block_key(element_ty, shape) if type(self) is block_type else None
        if key is not None:
            if len(blocks) >= _MOST_TYPES_KEPT:
                blocks.clear()
            blocks[key] = self

    def init_tensor(self: Any, handle: Any, type: Any) -> None:  # noqa: A002 - Triton's name for it
        found = fields.get(id(type))
        if found is None:
            shape = type.shape if type.is_block() else ()
            numel = constexpr(math.prod(shape))
            found = (type, triton_tuple([constexpr(dim) for dim in shape]), numel, type.scalar)
            if len(fields) >= _MOST_TYPES_KEPT:
                fields.clear()
            fields[id(type)] = found
        self.handle = handle
        # A shape of its own, as before (a Triton tuple is mutable), of the constexprs and tuple type kept
        self.shape = triton_tuple(found[1].values, found[1].type)
        self.numel = found[2]
        self.type = type
        self.dtype = found[3]

    init_block.makes_types_once = True  # type: ignore[attr-defined]
    block_type.__new__ = staticmethod(new_block)
    block_type.__init__ = init_block
    tensor.__init__ = init_tensor
    return True


def compare_shapes_directly() -> bool:
    """Compare a Triton tuple with a list or Triton tuple of ints (block shapes, at every broadcast) without
    normalizing the other into a new Triton tuple first: for ints, normalizing gives the same values back.
    -> whether it was applied (False: a Triton whose `tuple` differs, left as it is)."""
    try:
        from triton.language import core
    except ImportError:
        return False
    triton_tuple, constexpr = core.tuple, core.constexpr
    compare = triton_tuple.__eq__
    if getattr(compare, "compares_shapes_directly", False) \
            or list(inspect.signature(compare).parameters) != ["self", "other"] \
            or list(vars(triton_tuple([2, 4]))) != ["values", "type"]:
        return False

    def tuple_eq(self: Any, other: Any) -> Any:
        kind = type(other)
        if kind is list or kind is triton_tuple:
            values = other if kind is list else other.values
            if all(type(value) is int for value in values):
                return constexpr(self.values == values)
        return compare(self, other)

    tuple_eq.compares_shapes_directly = True  # type: ignore[attr-defined]
    triton_tuple.__eq__ = tuple_eq
    return True
