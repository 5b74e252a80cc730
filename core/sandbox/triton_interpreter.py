"""The Triton interpreter (TRITON_INTERPRET=1, kernels on the CPU), made cheaper for every kernel kata's save.

Triton's interpreter (3.x) patches `triton.language` for every device-function call it runs, and every
reduction is one (`tl.sum`, `tl.max`, `tl.cumsum` call a jitted combine function): each time, it scans
`triton.language`, `tl.tensor` and `tl.math` with `inspect.getmembers` to find the builtins to patch. A
kernel with a reduction in a loop pays that scan hundreds of times per launch: top-p sampling's binary
search spent 40% of its time there. The builtins never change, so here they are listed once per module;
what is patched, and when, is unchanged (an attribute already patched, or replaced, is left as it is, as
the scan left it). Likewise, the interpreter builds its table of NumPy dtypes (19 of them) at every cast,
load and comparison, hundreds of times per launch: here each answer is kept once found. Applied in the
zygote, so every worker and trusted worker forked from it has it.
"""

from __future__ import annotations

import inspect
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
