"""Landlock (Linux 5.13+), through its three system calls: a worker restricts itself to the policy's
grants (core/sandbox/policy.py), and, where the kernel has them, to no TCP (ABI 4) and to signals
and abstract Unix sockets within its own sandbox (ABI 6).

The `landlock` package on PyPI covers file access only (ABI 1 to 5); the network and scope rules are
what keep a solution from reaching the grader, so the calls are made here, with ctypes.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterable

from infrakata.core.sandbox.libc import PR_SET_NO_NEW_PRIVS, c_library
from infrakata.core.sandbox.policy import DEVICE, EXECUTE, LINK, LIST, READ, WRITE, Grant

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446  # the same numbers on every architecture
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1

# File access rights, by the ABI that introduced them.
EXECUTE_FILE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = (
    1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12)
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

_FILE_ONLY = EXECUTE_FILE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # what a rule on a file may grant


class RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class LandlockUnavailable(OSError):
    pass


def abi_version() -> int:
    """The kernel's Landlock ABI (0: none, or not Linux)."""
    if not sys.platform.startswith("linux"):
        return 0
    version = c_library().syscall(CREATE_RULESET, None, ctypes.c_size_t(0), CREATE_RULESET_VERSION)
    return max(int(version), 0)


def handled_fs(abi: int) -> int:
    rights = (EXECUTE_FILE | WRITE_FILE | READ_FILE | READ_DIR | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR
              | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM)
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def _rights(access: str, abi: int) -> int:
    read = READ_FILE | READ_DIR
    table = {
        READ: read,
        LIST: READ_DIR,
        EXECUTE: read | EXECUTE_FILE,
        DEVICE: read | WRITE_FILE | TRUNCATE | IOCTL_DEV,
        # Everything in the private folder but running programs from it.
        WRITE: handled_fs(abi) & ~EXECUTE_FILE,
    }
    return table[access] & handled_fs(abi)


def _check(result: int, what: str) -> int:
    if result < 0:
        error = ctypes.get_errno()
        raise LandlockUnavailable(error, f"landlock {what}: {os.strerror(error)}")
    return result


def restrict(grants: Iterable[Grant], abi: int) -> list[str]:
    """Restrict this thread (and every process and thread it starts later) to `grants`. Needs
    no_new_privs, which is set here. -> what was enforced, for the report."""
    libc = c_library()
    attr = RulesetAttr(handled_fs(abi), NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0,
                       SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = _check(libc.syscall(CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0), "create_ruleset")
    try:
        for grant in grants:
            if grant.access == LINK:  # the view's, granting nothing: its target has a grant of its own
                continue
            try:
                fd = os.open(grant.path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # gone since the policy was made: nothing to grant
            try:
                rights = _rights(grant.access, abi)
                if not os.path.isdir(grant.path):
                    rights &= _FILE_ONLY
                rule = PathBeneathAttr(rights, fd)
                _check(libc.syscall(ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0),
                       f"add_rule {grant.path}")
            finally:
                os.close(fd)
        _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _check(libc.syscall(RESTRICT_SELF, ruleset, 0), "restrict_self")
    finally:
        os.close(ruleset)
    enforced = ["files"]
    if abi >= 4:
        enforced.append("no TCP")
    if abi >= 6:
        enforced.append("signals and abstract sockets scoped")
    return enforced
