"""Reaching out of the worker: the host's Unix sockets (X11, journald, a user's own services), and memory
that no process's size counts (System V segments, memory files), which the grader's memory poll cannot
see."""

from __future__ import annotations

import os
import socket

from .conftest import attempt

# Each attempt prints "reached <how>" or "refused <how> <errno name>".
REACH = """
    import _socket
    def trying(how, act):
        try:
            act()
            print('reached', how)
        except OSError as error:
            print('refused', how, errno.errorcode.get(error.errno, error.errno))
    def own_socket(address):
        s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        s.connect(address)
    def pair_sending(address):
        a, b = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_DGRAM)
        a.sendto(b'hello', address)
    def pair_connecting(address):
        a, b = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_DGRAM)
        a.connect(address)
        a.send(b'hello')
    for how, act, target in (('socket', own_socket, STREAM), ('pair sendto', pair_sending, DATAGRAM),
                             ('pair connect', pair_connecting, DATAGRAM)):
        trying(how, lambda: act(target))
        trying(how + ' abstract', lambda: act(ABSTRACT))
"""


def test_no_unix_socket_of_the_host_is_reachable(runner, probe, tmp_path):
    """Before: any pathname socket others may write to answered (seccomp allowed AF_UNIX, and Landlock up
    to ABI 7 does not cover connect()); a socket pair could also address one with sendto."""
    folder = tmp_path / "service"
    folder.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(folder, 0o777)  # a socket anyone may use, as X11's or the journal's
    services = []
    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
        service = socket.socket(socket.AF_UNIX, kind)
        service.bind(str(folder / f"service-{kind}"))
        os.chmod(folder / f"service-{kind}", 0o777)
        if kind == socket.SOCK_STREAM:
            service.listen()
        service.setblocking(False)
        services.append(service)
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind(b"\0kata-test-service")
    abstract.listen()
    abstract.setblocking(False)
    prelude = (f"import errno\nSTREAM = {str(folder / f'service-{socket.SOCK_STREAM}')!r}\n"
               f"DATAGRAM = {str(folder / f'service-{socket.SOCK_DGRAM}')!r}\nABSTRACT = b'\\0kata-test-service'\n")
    report, message, output = attempt(runner, probe, REACH, prelude=prelude)
    assert report.verdict == "accepted", message
    lines = set(output.splitlines())  # the same from each case
    assert len(lines) == 6 and all(line.startswith("refused") for line in lines), output
    for listening in (services[0], abstract):
        try:
            listening.accept()
            raise AssertionError("a connection reached the host's socket")
        except BlockingIOError:
            pass
    try:
        services[1].recv(100)
        raise AssertionError("a datagram reached the host's socket")
    except BlockingIOError:
        pass


def test_memory_outside_every_process_is_refused(runner, probe):
    """Before: a detached System V segment of 1 GiB lived on under a 512 MiB limit, counted by no
    process; a memory file unmapped but kept open does the same."""
    report, message, output = attempt(runner, probe, """
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        segment = libc.shmget(0, 1 << 30, 0o1600)
        print('shmget', segment, errno.errorcode.get(ctypes.get_errno()))
        try:
            os.memfd_create('hoard')
            print('memfd made')
        except OSError as error:
            print('memfd', errno.errorcode.get(error.errno))
    """, prelude="import errno")
    assert report.verdict == "accepted", message
    assert set(output.splitlines()) == {"shmget -1 EPERM", "memfd EPERM"}, output
