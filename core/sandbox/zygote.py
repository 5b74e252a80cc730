"""The zygote: a warm process (torch, and triton where installed, already imported) that forks one
fresh copy-on-write worker per solution run, and keeps one worker of each kind started ahead of need.

It stays single-threaded and free of CUDA, because it forks: it is started with one-thread BLAS and
OpenMP pools (a fork after a parallel region deadlocks OpenMP in the child), runs torch ops only to warm
MKL and only while it has no other thread, and asks whether CUDA exists in a throwaway child (NVML and
the driver start threads). It never sees expected outputs:
it only receives descriptors and forks. Its messages are protocol.py's events.

A spare worker has already done what a run would otherwise wait for: the fork and, for a CUDA
worker, the CUDA context, torch's CUDA libraries and Triton's driver. A fork request takes the spare
of its kind (or forks one at once when there is none) and a new spare is started when the zygote
is next idle.
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import importlib
import json
import os
import select
import shutil
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NoReturn

from infrakata.core.sandbox import triton_interpreter
from infrakata.core.sandbox.confine import LAYERS, Confinement, Spare, sweep_uid
from infrakata.core.sandbox.gpu import compute_mode_problem, interprets, read_gpus, triton_interpret
from infrakata.core.sandbox.procfs import children
from infrakata.core.sandbox.protocol import (
    NO_IDLE_IMPORTS,
    TORCH_FREE,
    Event,
    Exited,
    Forked,
    ForkRequest,
    Gpu,
    Layer,
    ProtocolError,
    Ready,
    SpareStarted,
    decode_event,
    encode_event,
)

# What Triton imports at a process's first kernel launch (3.9: its kernel argument specializer, 90 ms of
# imports), imported here once instead of in every worker's first case.
TRITON_FIRST_LAUNCH_IMPORTS = ("triton.compiler.code_generator", "triton.experimental.gluon")
GRADER_POLL_S = 0.5
PROBE_TIMEOUT_S = 10.0
CUDA_PROBE_TIMEOUT_S = 60.0  # CUDA's start and a first (cold) Triton compile, on a busy machine
CUDA_OPEN_TIMEOUT_S = 30.0  # CUDA's start in the trusted opener; with the above, inside the grader's wait for Ready
IDLE_AFTER_S = 0.2  # no request for this long: the zygote is idle and does its background work
SPARE_FAILURES = 3  # a kind of spare that dies this often before use is no longer started
# Spares kept of each kind: a confined spare takes tens of milliseconds to make (its namespaces, its
# fork), so with two a save arriving right after another still finds one ready.
SPARES_PER_KIND = 2
REFILL_AFTER_S = 0.03  # a spare taken while another is left is replaced this long after, when nothing else waits


def _probe_cuda() -> tuple[bool, tuple[Gpu, ...]]:
    """Whether CUDA can be used, and the visible GPUs with their compute modes, asked in a throwaway child
    so that this process stays free of CUDA."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            import torch

            cuda = torch.cuda.is_available()
            try:
                gpus = [vars(gpu) for gpu in read_gpus()] if cuda else []
            except Exception:  # noqa: BLE001 - the modes are a diagnosis: CUDA is used all the same
                gpus = []
            os.write(write, json.dumps({"cuda": cuda, "gpus": gpus}).encode())
        finally:
            os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 65536):
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    try:
        found = json.loads(data)
        return found["cuda"] is True, tuple(Gpu(**gpu) for gpu in found["gpus"])
    except (ValueError, TypeError, KeyError):  # the child died before it could say: no CUDA here
        return False, ()


def _warm_mkl(torch: Any) -> None:
    """A process's first MKL matrix product allocates MKL's packing buffers (4 MiB a path, kept) and picks its
    kernels (1 to 2 ms): made here once, they are part of every worker's starting size instead of charged
    to each solution, where they exceeded a kata's memory limit of a few MiB (flash-attention-forward's 4)
    whenever the worker's heap had no room left to hide them. Only while this process has one thread: with
    one-thread pools (the pool's environment, set_num_threads), OpenMP starts none."""
    try:
        if len(os.listdir("/proc/self/task")) != 1:
            return
    except OSError:  # no /proc (macOS): its BLAS is not MKL
        return
    for dtype in (torch.float32, torch.float64):
        # Each path has buffers of its own: a batched product with an odd row count (MKL's copying path),
        # and a plain one of 256 (what every larger one uses).
        torch.ones(1, 5, 16, dtype=dtype) @ torch.ones(1, 16, 16, dtype=dtype).transpose(-1, -2)
        torch.ones(256, 256, dtype=dtype) @ torch.ones(256, 256, dtype=dtype)


def _warm_imports() -> Ready:
    """Import what solutions use, so each fork starts warm. Returns what is available."""
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")  # is_available() without a CUDA context
    import torch

    torch.set_num_threads(1)
    _warm_mkl(torch)
    cuda, gpus = _probe_cuda()
    # Before `import triton`, which reads it: the interpreter runs kernels on CPU tensors where there is no
    # CUDA, and is cleared where there is (gpu.triton_interpret).
    interpret, cleared = triton_interpret(os.environ.get("TRITON_INTERPRET"), cuda)
    if interpret is None:
        os.environ.pop("TRITON_INTERPRET", None)
    else:
        os.environ["TRITON_INTERPRET"] = interpret
    try:
        import numpy  # noqa: F401 - the Triton interpreter needs it
        import triton  # noqa: F401
        import triton.language  # noqa: F401
        has_triton = True
    except ImportError:
        has_triton = False
    for module in TRITON_FIRST_LAUNCH_IMPORTS if has_triton else ():
        with contextlib.suppress(ImportError):  # a Triton that has it
            importlib.import_module(module)
    if has_triton and interprets(interpret):
        triton_interpreter.list_builtins_once()
        triton_interpreter.map_dtypes_once()
        triton_interpreter.make_types_once()
        triton_interpreter.compare_shapes_directly()
        from infrakata.core.sandbox import kernel_meter  # what a kernel kata's calls are measured with

        kernel_meter.take_first_config()  # an autotuner has no GPU to time its configurations on
    if has_triton:  # how the eager guard knows Triton's own frames: made once, for every fork
        from infrakata.core.sandbox import tripwires

        tripwires.triton_code_objects()
    # What every worker runs, and the arena a run with tensor inputs opens: imported once here.
    from infrakata.core.sandbox import arena, child  # noqa: F401
    return Ready(cuda, has_triton, interprets(interpret), gpus=gpus, interpret_cleared=cleared)


def _torch_free_imports() -> Ready:
    """A torch-free zygote's: only what every worker runs (SolutionSpec.torch_free). No CUDA, no Triton."""
    from infrakata.core.sandbox import child  # noqa: F401

    return Ready(cuda=False, triton=False, interpret=False)


def _orphans(known: set[int]) -> list[int]:
    """Processes reparented to this subreaper after their parent (a solution) died."""
    return [pid for pid in children(os.getpid()) if pid not in known]


def _probe(confinement: Confinement, lifeline: int, close_in_child: tuple[int, ...]) -> tuple[Layer, ...]:
    """The layers a worker gets here, found by confining a throwaway worker exactly as every worker is,
    and checking from inside that each layer holds (not only that its system call succeeded)."""
    spare = confinement.new_spare(cuda=False)
    read, write = os.pipe()
    pid = confinement.fork(spare)
    if pid == 0:
        try:
            for fd in (read, *close_in_child):
                os.close(fd)
            layers = _confined_and_verified(confinement, spare, False, lifeline, close_in_waiter=(write,))
            os.write(write, json.dumps([vars(layer) for layer in layers]).encode())
        except BaseException as error:  # noqa: BLE001 - said as the probe's result
            os.write(write, json.dumps([vars(Layer("namespaces", False, f"the probe failed: {error!r}"))]).encode())
        finally:
            os._exit(0)
    os.close(write)
    data = _read_all(read, PROBE_TIMEOUT_S)
    os.waitpid(pid, 0)
    _remove(spare)
    try:
        return _in_order(Layer(**layer) for layer in json.loads(data))
    except (ValueError, TypeError, KeyError):
        return _in_order(())


def _confined_and_verified(confinement: Confinement, spare: Spare, cuda: bool, lifeline: int,
                           close_in_waiter: tuple[int, ...]) -> list[Layer]:
    """In a probe's worker: confined as every worker of its kind is, then each layer tried from inside."""
    from infrakata.core.sandbox.child import prepare_worker

    layers = prepare_worker(confinement, spare, cuda, lifeline, close_in_waiter=close_in_waiter)
    viewed = any(layer.name == "view" and layer.active for layer in layers)
    return [_verified(layer, confinement.answer_samples, viewed, spare.pid_namespace) for layer in layers]


def _in_order(layers: Iterable[Layer]) -> tuple[Layer, ...]:
    """Every layer, in LAYERS' order: one the probe worker did not report was not applied."""
    found = {layer.name: layer for layer in layers}
    return tuple(found.get(name) or Layer(name, False, "not applied: the probe worker failed before it")
                 for name in LAYERS)


def _read_all(fd: int, timeout: float) -> bytes:
    data = b""
    deadline = time.monotonic() + timeout
    while select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0] and (chunk := os.read(fd, 65536)):
        data += chunk
    os.close(fd)
    return data


def _probe_cuda_route(confinement: Confinement, lifeline: int, close_in_child: tuple[int, ...],
                      triton: bool) -> tuple[tuple[Layer, ...], str]:
    """On a CUDA machine: a throwaway CUDA worker, confined as every CUDA worker is, initialises CUDA,
    launches a Triton kernel and exports its output by CUDA IPC; a throwaway trusted process (a child of
    this one, as the reference's workers are) opens it and checks it (core/sandbox/cuda_probe.py). This
    process never touches CUDA. -> the CUDA workers' layers, and why CUDA grading is refused here ("")."""
    spare = confinement.new_spare(cuda=True)
    report_r, report_w = os.pipe()
    release_r, release_w = os.pipe()  # the worker keeps its output until the opener is done with it
    worker = confinement.fork(spare)
    if worker == 0:
        report: dict[str, Any] = {"layers": []}
        try:
            for fd in (report_r, release_w, *close_in_child):
                os.close(fd)
            applied = _confined_and_verified(confinement, spare, True, lifeline, close_in_waiter=(report_w, release_r))
            report["layers"] = [vars(layer) for layer in applied]
            from infrakata.core.sandbox.cuda_probe import make_output

            report["output"] = make_output(triton)
        except BaseException as error:  # noqa: BLE001 - said as the probe's result
            report["error"] = f"{type(error).__name__}: {error}"
        finally:
            os.write(report_w, json.dumps(report).encode())
            os.close(report_w)
            os.read(release_r, 1)
            os._exit(0)
    os.close(report_w)
    os.close(release_r)
    try:
        found = json.loads(_read_all(report_r, CUDA_PROBE_TIMEOUT_S) or b"{}")
        layers = _in_order(Layer(**layer) for layer in found.get("layers", ()))
        if "output" in found:
            refusal = _opened_by_trusted_process(found["output"])
        else:
            refusal = (f"a confined CUDA worker could not initialise CUDA and launch a kernel "
                       f"({found.get('error', f'no answer in {CUDA_PROBE_TIMEOUT_S:.0f} s')})")
    except (ValueError, TypeError, KeyError) as error:
        layers, refusal = _in_order(()), f"the CUDA probe's worker answered malformed ({error})"
    finally:
        os.close(release_w)
        with contextlib.suppress(OSError):
            os.kill(worker, signal.SIGKILL)
        os.waitpid(worker, 0)
        if not spare.pid_namespace and spare.uid is not None:
            sweep_uid(spare.uid)
        _remove(spare)
    return layers, refusal


def _opened_by_trusted_process(handles: object) -> str:
    """The CUDA probe's second half, in a child of this process. -> "" or why it failed."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            from infrakata.core.sandbox.cuda_probe import check_output

            problem = check_output(handles)
        except BaseException as error:  # noqa: BLE001 - said as the probe's result
            problem = f"{type(error).__name__}: {error}"
        finally:
            os.write(write, problem.encode() or b"ok")
            os._exit(0)
    os.close(write)
    said = _read_all(read, CUDA_OPEN_TIMEOUT_S).decode(errors="replace")
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    if said == "ok":
        return ""
    return (f"the benchmark's trusted worker could not open a confined worker's output by CUDA IPC "
            f"({said or f'no answer in {CUDA_OPEN_TIMEOUT_S:.0f} s'})")


def _verified(layer: Layer, answers: list[Path], viewed: bool, pid_namespace: bool) -> Layer:
    """A layer as it holds in this (probe) worker: each is tried once from inside. `answers`: a file of
    each place that holds answers (the catalogue, the examples, our kernels); `viewed`: whether the view
    holds (then they must not even be there, and Landlock's part is the rest of the machine);
    `pid_namespace`: whether the worker has a PID namespace of its own (else it must not see the zygote)."""
    if not layer.active:
        return layer
    failed = ""
    if layer.name == "view":
        there = [answer for answer in answers if os.path.lexists(answer)]
        failed = f"{there[0]} is still there" if there else ""
    elif layer.name == "landlock":
        try:
            os.listdir("/")
            failed = "the root folder can still be listed"
        except PermissionError:
            pass
        for answer in [] if viewed else answers:
            try:
                answer.read_bytes()
                failed = f"{answer} is still readable"
            except OSError:
                pass
    elif layer.name == "seccomp":
        try:
            socket.socket(socket.AF_UNIX).close()
            failed = "a socket could still be opened"
        except OSError:
            pass
    elif layer.name == "namespaces" and pid_namespace and os.getpid() != 1:
        failed = "the worker is not the first process of its PID namespace"
    elif layer.name == "namespaces" and not pid_namespace:
        try:
            with open(f"/proc/{os.getppid()}/cmdline", "rb") as zygote:
                zygote.read()
            failed = "the zygote's command line can be read in /proc"
        except OSError:
            pass
    elif layer.name == "privileges" and os.geteuid() == 0:
        failed = "the worker still runs as root"
    return Layer(layer.name, False, f"{layer.detail}; but {failed}") if failed else layer


def _remove(spare: Spare) -> None:
    """A worker's folders, once it has exited (their mounts went with its mount namespace)."""
    for folder in spare.folders():
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class _Spare:
    pid: int
    sock: socket.socket  # the zygote's end: the run's descriptors are sent over it
    confined: Spare


class Zygote:
    """The fork server of one grading process: owns the spares and the handed-out workers (their pids,
    folders and uids) until each is reaped, and tells the grader of each event (protocol.py).
    `lifeline`: (read end, write end) of the pipe that tells every child of this process's death."""

    def __init__(self, sock: socket.socket, cuda: bool, confinement: Confinement, isolation: tuple[Layer, ...],
                 lifeline: tuple[int, int], idle_imports: bool = True):
        self.sock = sock
        self.lifeline, self.lifeline_held = lifeline
        self.confinement = confinement
        active = {layer.name for layer in isolation if layer.active}
        self.namespaced = "namespaces" in active
        self.kinds = [False, True] if cuda else [False]  # CPU workers; CUDA workers where there is CUDA
        # Some workers have no PID namespace to take all they started with them: what they leave is swept.
        self.sweeps_orphans = not self.namespaced or any(map(confinement.route, self.kinds))
        self.children: set[int] = set()  # handed-out workers, whose exits the grader is told of
        self.spares: dict[bool, list[_Spare]] = {kind: [] for kind in self.kinds}  # oldest (readiest) first
        self.confined: dict[int, Spare] = {}  # every confined worker's folder and uid, until it is reaped
        self.spare_failures = dict.fromkeys(self.kinds, 0)
        self.grader = os.getppid()
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        # Imports first (the spares should have them), then a spare of each kind. A one-shot command's pool
        # does without them: its first fork would wait for them (_finish_idle_imports), and its few workers
        # rarely need them.
        self.idle_work: list[Callable[[], None]] = [self._refill_spares]
        if idle_imports:
            self.idle_work.append(self._idle_imports)
        self.warm = not idle_imports  # the slow imports done (or not to be done): a spare started now is final

    # -- workers -----------------------------------------------------------------------------------

    def _fork(self, body: Callable[[], NoReturn], confined: Spare | None = None) -> int:
        pid = self.confinement.fork(confined) if confined is not None else os.fork()
        if pid == 0:
            try:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                self.sock.close()
                os.close(self.wake_r)
                os.close(self.wake_w)
                os.close(self.lifeline_held)  # only this process may hold it: the child's lifeline is the other end
                for spare in self._all_spares():
                    spare.sock.close()
                body()
            finally:
                os._exit(1)
        if confined is not None:
            self.confined[pid] = confined
        return pid

    def _start_spare(self, cuda: bool) -> None:
        from infrakata.core.sandbox.child import prctl, run_spare
        from infrakata.core.sandbox.libc import PR_SET_NAME
        from infrakata.core.sandbox.protocol import SPARE_NAME, ZYGOTE_NAME

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        confined = self.confinement.new_spare(cuda)

        def spare() -> NoReturn:
            ours.close()
            run_spare(theirs, cuda, self.confinement, confined, self.lifeline)

        prctl(PR_SET_NAME, SPARE_NAME)  # a spare is born with its name: nobody sees it unnamed
        try:
            pid = self._fork(spare, confined)
        finally:
            prctl(PR_SET_NAME, ZYGOTE_NAME)
        theirs.close()
        self.spares[cuda].append(_Spare(pid, ours, confined))
        self.send(SpareStarted(pid, cuda))

    def _idle_imports(self) -> None:
        """Slow imports that only some solutions need, done while nobody waits for a fork (or before the first
        fork, where that comes first: _finish_idle_imports)."""
        # Creating any optimizer imports torch._dynamo (seconds): pay it once here, not in every child. Its
        # first step opens a profiler region, which imports the CUPTI monitor (2 ms a worker).
        import torch._dynamo  # noqa: F401
        import torch.optim  # noqa: F401
        with contextlib.suppress(ImportError):  # a torch that has it
            import torch.profiler._cupti_monitor  # noqa: F401

        gc.freeze()  # see main
        self.warm = True

    def _finish_idle_imports(self) -> None:
        """Before a worker is forked: one forked without them would make them itself, inside its solution's
        timed call (creating an optimizer imports torch._dynamo: 1.7 s of a core). The request waits instead,
        outside any call's clock; it comes before the zygote was ever idle only at a batch's start."""
        if self._idle_imports in self.idle_work:
            self.idle_work.remove(self._idle_imports)
            self._idle_imports()

    def _refill_spares(self) -> None:
        for cuda in self.kinds:
            while len(self.spares[cuda]) < SPARES_PER_KIND and self.spare_failures[cuda] < SPARE_FAILURES:
                self._start_spare(cuda)

    def _all_spares(self) -> list[_Spare]:
        return [spare for kind in self.spares.values() for spare in kind]

    def _worker(self, request: ForkRequest, fds: list[int]) -> int:
        """A worker for this run: the spare of its kind, else one forked (and confined) now; a trusted
        worker is always forked now, unconfined."""
        cuda = request.cuda and True in self.kinds
        spare = None if request.trusted or not self.spares[cuda] else self.spares[cuda].pop(0)
        if spare is not None:
            try:
                socket.send_fds(spare.sock, [b"run"], fds)
                return spare.pid
            except OSError:  # it died before its turn; its exit is reaped as a spare's
                pass
            finally:
                spare.sock.close()
        confined = None if request.trusted else self.confinement.new_spare(cuda)

        def run() -> NoReturn:
            from infrakata.core.sandbox.child import main, prepare_worker

            layers = prepare_worker(None if confined is None else self.confinement, confined, cuda, self.lifeline)
            main(fds, layers)

        return self._fork(run, confined)

    def _end(self, pid: int) -> None:
        """After a worker (or spare) exited: nothing of it left running, its folder removed."""
        try:
            os.killpg(pid, signal.SIGKILL)  # whatever the solution started in its process group
        except OSError:
            pass
        confined = self.confined.pop(pid, None)
        if not self._died_whole(confined):
            if confined is not None and confined.uid is not None:
                sweep_uid(confined.uid)
            self._kill_orphans()
        if confined is not None:
            _remove(confined)

    def _died_whole(self, confined: Spare | None) -> bool:
        """Whether all a worker started died with it: it had a PID namespace of its own (a trusted
        worker, unconfined, runs only our code)."""
        return self.namespaced and (confined is None or confined.pid_namespace)

    def _kill_orphans(self) -> None:
        """Whatever left a worker's tree (a double fork) and was reparented to this subreaper."""
        for orphan in _orphans(self.children | {s.pid for s in self._all_spares()}):
            try:
                os.kill(orphan, signal.SIGKILL)
            except OSError:
                pass

    # -- the loop ----------------------------------------------------------------------------------

    def leave(self) -> NoReturn:
        """The grader is gone: leave nothing running (none of these is reaped yet, so no pid is reused)."""
        for pid in [*self.children, *(s.pid for s in self._all_spares())]:
            for kill in (os.killpg, os.kill):  # a spare just forked may not have its own group yet
                try:
                    kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        for confined in self.confined.values():
            if confined.uid is not None and not self._died_whole(confined):
                sweep_uid(confined.uid)
        self._kill_orphans()
        self.confinement.remove_runtime()
        os._exit(0)

    def send(self, event: Event) -> None:
        try:
            self.sock.send(encode_event(event))
        except OSError:  # ECONNREFUSED: the grader's end is closed
            self.leave()

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            for cuda, kind in self.spares.items():
                for spare in [s for s in kind if s.pid == pid]:  # a spare died before its turn
                    spare.sock.close()
                    kind.remove(spare)
                    self.spare_failures[cuda] += 1
                    self.idle_work.insert(0, self._refill_spares)
            if pid in self.confined or pid in self.children:
                self._end(pid)
            if pid in self.children:
                self.children.discard(pid)
                self.send(Exited(pid, os.waitstatus_to_exitcode(status)))

    def serve(self) -> NoReturn:
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        refill_at: float | None = None  # a spare to replace, once the run just handed one has started
        while True:
            wait = IDLE_AFTER_S if self.idle_work else GRADER_POLL_S
            if refill_at is not None:
                wait = max(0.0, min(wait, refill_at - time.monotonic()))
            readable, _, _ = select.select([self.sock.fileno(), self.wake_r], [], [], wait)
            if os.getppid() != self.grader:  # reparented: the grader died without closing its socket
                self.leave()
            if self.sweeps_orphans:  # a double fork outside any PID namespace: swept on sight
                self._kill_orphans()
            if refill_at is not None and not readable and time.monotonic() >= refill_at:
                refill_at = None
                self._refill_spares()
                continue
            if not readable and self.idle_work:
                self.idle_work.pop()()
                continue
            if self.wake_r in readable:
                os.read(self.wake_r, 4096)
                self.reap()
            if self.sock.fileno() in readable:
                try:
                    data, fds, _, _ = socket.recv_fds(self.sock, 65536, 8)
                except OSError:
                    data, fds = b"", []
                if not data:
                    self.leave()
                try:
                    request = decode_event(data)
                except ProtocolError:
                    request = None
                if isinstance(request, ForkRequest) and len(fds) in (3, 4):
                    self._finish_idle_imports()
                    pid = self._worker(request, fds)
                    self.children.add(pid)
                    self.send(Forked(pid))
                for fd in fds:  # before any other fork: a copy of a run's pipe would hide its worker's death
                    os.close(fd)
                if self.warm and isinstance(request, ForkRequest):
                    # The next run's worker: at once when none is left, else a little later, so that making
                    # it (a fork, its confinement) does not take the CPU from the run just handed out.
                    if not self.spares[request.cuda and True in self.kinds]:
                        self._refill_spares()
                    elif refill_at is None:
                        refill_at = time.monotonic() + REFILL_AFTER_S


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    runtime = Path(sys.argv[2])
    idle_imports = NO_IDLE_IMPORTS not in sys.argv[3:]
    torch_free = TORCH_FREE in sys.argv[3:]
    # No parent-death signal here: it fires when the spawning *thread* ends. The grader's socket reads
    # end-of-file once the grader is gone, and serve() watches the parent as well.
    from infrakata.core.sandbox.child import prctl
    from infrakata.core.sandbox.libc import PR_SET_CHILD_SUBREAPER, PR_SET_NAME
    from infrakata.core.sandbox.protocol import STACK_SIGNAL, ZYGOTE_NAME

    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_NAME, ZYGOTE_NAME)
    # At a timeout the grader asks a worker where its call is before it kills it (STACK_SIGNAL): the stack is
    # dumped from the signal handler itself, so a loop in C (a long torch op) answers too, to file descriptor 1,
    # which is each worker's output. Registered here, its alternate stack is in every worker's baseline.
    faulthandler.register(STACK_SIGNAL, file=sys.stdout, all_threads=False)
    ready = _torch_free_imports() if torch_free else _warm_imports()
    # What the imports made is kept for good: out of the collector's sight, a worker's collections never
    # touch (and so never copy) the hundreds of thousands of objects it shares with this process.
    gc.freeze()
    confinement = Confinement.prepare(runtime)
    lifeline = os.pipe()
    ready = replace(ready, isolation=_probe(confinement, lifeline[0], (sock.fileno(), lifeline[1])))
    if ready.cuda and compute_mode_problem(ready.gpus) is None:
        cuda_isolation, cuda_refusal = _probe_cuda_route(confinement, lifeline[0], (sock.fileno(), lifeline[1]),
                                                         ready.triton)
        ready = replace(ready, cuda_isolation=cuda_isolation, cuda_refusal=cuda_refusal)
    try:
        sock.send(encode_event(ready))
    except OSError:  # the grader left while we were importing
        confinement.remove_runtime()
        os._exit(0)
    # No CUDA worker where the GPU's compute mode cannot hold them, or the probe failed: the grader refuses
    # CUDA work there.
    cuda_workers = ready.cuda and compute_mode_problem(ready.gpus) is None and not ready.cuda_refusal
    Zygote(sock, cuda_workers, confinement, ready.isolation, lifeline, idle_imports and not torch_free).serve()


if __name__ == "__main__":
    main()
