"""seccomp: the system calls a worker is refused (core/sandbox/policy.py), as a BPF program.

The program is built once, in the zygote, with libseccomp (through `pyseccomp`), and each worker loads
the compiled bytes with one system call, on all its threads at once (a CUDA worker has the driver's).
"""

from __future__ import annotations

import ctypes
import os
import sys

from infrakata.core.sandbox import policy
from infrakata.core.sandbox.libc import PR_SET_NO_NEW_PRIVS, c_library

SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC = 1, 1
SYS_SECCOMP = {"x86_64": 317, "aarch64": 277}


class SeccompUnavailable(OSError):
    pass


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def build() -> bytes:
    """The policy's filter, compiled. Raises SeccompUnavailable (why) where it cannot be built."""
    if not sys.platform.startswith("linux") or os.uname().machine not in SYS_SECCOMP:
        raise SeccompUnavailable(f"seccomp filters are built for Linux on {' or '.join(SYS_SECCOMP)} only")
    try:
        import pyseccomp as sc
    except Exception as error:  # noqa: BLE001 - ImportError, or libseccomp itself missing (RuntimeError)
        raise SeccompUnavailable(f"pyseccomp or libseccomp is missing ({error}); install libseccomp2 and "
                                 f"`pip install pyseccomp`") from None
    program = sc.SyscallFilter(sc.ALLOW)
    refuse = sc.ERRNO(policy.DENIED_ERRNO)
    for name in policy.DENIED_SYSCALLS:
        try:
            program.add_rule(refuse, name)
        except (OSError, ValueError, RuntimeError):
            continue  # not a system call on this architecture
    program.add_rule(sc.ERRNO(policy.SOCKET_ERRNO), "socketpair", sc.Arg(0, sc.NE, policy.SOCKET_FAMILY_ALLOWED))
    program.add_rule(refuse, "sendto", sc.Arg(4, sc.NE, 0))  # an address: a socket pair sending elsewhere
    program.add_rule(refuse, "fcntl", sc.Arg(1, sc.EQ, policy.F_SETPIPE_SZ))
    program.add_rule(sc.ERRNO(38), "clone3")  # ENOSYS: the C library falls back to clone
    for flag in policy.CLONE_NAMESPACE_FLAGS:
        program.add_rule(refuse, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    for option in policy.DENIED_PRCTL:
        program.add_rule(refuse, "prctl", sc.Arg(0, sc.EQ, option))
    exported = os.memfd_create("kata-seccomp")
    try:
        with os.fdopen(exported, "w+b", closefd=False) as out:
            program.export_bpf(out)
            out.seek(0)
            return out.read()
    finally:
        os.close(exported)


def load(program: bytes) -> None:
    """Install the compiled filter on every thread of this process (no_new_privs is set first)."""
    libc = c_library()
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(buffer))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.syscall(
            SYS_SECCOMP[os.uname().machine], SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC,
            ctypes.byref(fprog)) != 0:
        error = ctypes.get_errno()
        raise SeccompUnavailable(error, f"seccomp: {os.strerror(error)}")
