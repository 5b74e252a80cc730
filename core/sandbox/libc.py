"""The C library, loaded once per process: ctypes.CDLL makes a new handle, and looks each function up again,
every time it is called, and a spare's confinement calls into libc a few dozen times (the zygote, at each fork,
a few more)."""

from __future__ import annotations

import ctypes
import functools


@functools.cache
def c_library() -> ctypes.CDLL:
    """errno is kept per thread (ctypes.get_errno) after each call."""
    return ctypes.CDLL(None, use_errno=True)
