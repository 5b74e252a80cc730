"""The C library, loaded once per process: ctypes.CDLL makes a new handle, and looks each function up again,
every time it is called, and a spare's confinement calls into libc a few dozen times (the zygote, at each fork,
a few more)."""

from __future__ import annotations

import ctypes
import functools

# prctl(2) options (linux/prctl.h), in one place for every layer that sets one.
PR_SET_PDEATHSIG = 1
PR_SET_KEEPCAPS = 8
PR_SET_NAME = 15
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38


@functools.cache
def c_library() -> ctypes.CDLL:
    """errno is kept per thread (ctypes.get_errno) after each call."""
    return ctypes.CDLL(None, use_errno=True)
