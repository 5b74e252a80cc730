"""What /proc says of a worker's processes: its tree, their states and memory. Linux only; elsewhere
every answer is empty (macOS has no /proc: the limits there are the worker's own rlimits)."""

from __future__ import annotations

import os


def _read(path: str) -> bytes:
    """A small /proc file's bytes, by the bare system calls: a worker's files are read before and after each
    of its calls, where open()'s buffered file object costs as much again as the reading."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        data = b""
        while chunk := os.read(fd, 65536):  # a long children listing comes a page at a time
            data += chunk
        return data
    finally:
        os.close(fd)


def stat_fields(pid: int | str) -> list[bytes]:
    """/proc/PID/stat after the command name (which may hold spaces): [state, ppid, pgrp, ...]."""
    try:
        return _read(f"/proc/{pid}/stat").rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return []


def children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for thread in threads:
        try:
            found += [int(child) for child in _read(f"/proc/{pid}/task/{thread}/children").split()]
        except (OSError, ValueError):
            continue
    return found


def tree(root: int) -> list[int]:
    """`root` and its descendants (in a worker's PID namespace, orphans stay in it: its whole tree)."""
    found, frontier = [], [root]
    while frontier:
        pid = frontier.pop()
        if pid in found:
            continue
        found.append(pid)
        frontier += children(pid)
    return found


def command_name(pid: int) -> bytes:
    """/proc/PID/comm without its newline (b"" once it is gone)."""
    try:
        return _read(f"/proc/{pid}/comm").rstrip(b"\n")
    except OSError:
        return b""


def parent(pid: int) -> int | None:
    fields = stat_fields(pid)
    return int(fields[1]) if len(fields) > 1 else None


def queued_seconds(pid: int) -> float:
    """How long a process's main thread has waited to run while it was ready to (on a run queue): the
    time the machine's other work took from it. 0 where the kernel does not say (no /proc)."""
    try:
        return int(_read(f"/proc/{pid}/schedstat").split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def stopped(pid: int) -> bool:
    """Whether every thread of the process is stopped (T), or it is gone."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True
    for thread in threads:
        fields = stat_fields(f"{pid}/task/{thread}")
        if fields and fields[0] not in (b"T", b"t"):
            return False
    return True


def real_uid(pid: int) -> int | None:
    """A live process's real uid."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("Uid:"))
    except (OSError, StopIteration, ValueError, IndexError):
        return None


def resident_bytes(pid: int | str = "self") -> int | None:
    """A process's resident size."""
    try:
        return int(_read(f"/proc/{pid}/statm").split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def private_bytes(pid: int) -> int:
    """What a process holds that no other does (its copies of pages shared at fork count once: in it)."""
    total = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return total
