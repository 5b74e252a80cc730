"""The zygote: a warm process (torch, and triton where installed, already imported) that forks one
fresh copy-on-write child per solution run.

It never runs a torch op (a fork after one deadlocks OpenMP in the child) and never sees expected
outputs: it only receives descriptors and forks. Protocol over a Unix datagram socket, JSON:
  grader -> zygote  {"op": "fork"} + 3 descriptors (child's input, child's output, printed output)
  zygote -> grader  {"ready": ...} once; {"pid": n} per fork; {"exit": n, "code": c} per exit
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
from typing import NoReturn

GRADER_POLL_S = 0.5



def _warm_imports() -> dict[str, object]:
    """Import what solutions use, so each fork starts warm. Returns what is available."""
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")  # is_available() without a CUDA context
    import torch

    torch.set_num_threads(1)
    cuda = torch.cuda.is_available()
    if not cuda:
        # Triton kernels run on CPU tensors through the interpreter; must be set before `import triton`.
        os.environ.setdefault("TRITON_INTERPRET", "1")
    try:
        import numpy  # noqa: F401 - the Triton interpreter needs it
        import triton  # noqa: F401
        import triton.language  # noqa: F401
        has_triton = True
    except ImportError:
        has_triton = False
    import infrakata.core.sandbox.child  # noqa: F401
    return {"cuda": cuda, "triton": has_triton, "interpret": os.environ.get("TRITON_INTERPRET") == "1"}


def _orphans(known: set[int]) -> list[int]:
    """Processes reparented to this subreaper after their parent (a solution) died."""
    me, found = os.getpid(), []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit() or int(entry) in known:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            found.append(int(entry))
    return found


def _idle_imports() -> None:
    """Slow imports that only some solutions need, done while nobody waits for a fork."""
    # Creating any optimizer imports torch._dynamo (seconds): pay it once here, not in every child.
    import torch._dynamo  # noqa: F401
    import torch.optim  # noqa: F401


def serve(sock: socket.socket) -> None:
    children: set[int] = set()
    idle_work = [_idle_imports]
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)

    grader = os.getppid()

    def leave() -> NoReturn:
        """The grader is gone: leave nothing running."""
        for pid in children:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        os._exit(0)

    def send(message: dict) -> None:
        try:
            sock.send(json.dumps(message).encode())
        except OSError:  # ECONNREFUSED: the grader's end is closed
            leave()

    def reap() -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid not in children:
                continue  # an orphan we killed
            children.discard(pid)
            try:
                os.killpg(pid, signal.SIGKILL)  # whatever the solution started in its session
            except OSError:
                pass
            for orphan in _orphans(children):  # and whatever escaped it, now reparented to us
                try:
                    os.kill(orphan, signal.SIGKILL)
                except OSError:
                    pass
            send({"exit": pid, "code": os.waitstatus_to_exitcode(status)})

    while True:
        readable, _, _ = select.select([sock, wake_r], [], [], 0.2 if idle_work else GRADER_POLL_S)
        if os.getppid() != grader:  # reparented: the grader died without closing its socket (SIGKILL, SIGTERM)
            leave()
        if not readable and idle_work:
            idle_work.pop()()
            continue
        if wake_r in readable:
            os.read(wake_r, 4096)
            reap()
        if sock in readable:
            try:
                data, fds, _, _ = socket.recv_fds(sock, 65536, 8)
            except OSError:
                data, fds = b"", []
            if not data:
                leave()
            request = json.loads(data)
            if request.get("op") == "fork" and len(fds) == 3:
                pid = os.fork()
                if pid == 0:
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    sock.close()
                    os.close(wake_r)
                    os.close(wake_w)
                    from infrakata.core.sandbox.child import main

                    main(*fds)
                children.add(pid)
                send({"pid": pid})
            for fd in fds:
                os.close(fd)


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    # No parent-death signal here: it fires when the spawning *thread* ends. serve() watches the
    # parent instead.
    from infrakata.core.sandbox.child import PR_SET_CHILD_SUBREAPER, prctl

    prctl(PR_SET_CHILD_SUBREAPER, 1)
    info = _warm_imports()
    try:
        sock.send(json.dumps({"ready": True, **info}).encode())
    except OSError:  # the grader left while we were importing
        os._exit(0)
    serve(sock)


if __name__ == "__main__":
    main()
