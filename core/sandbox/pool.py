"""The warm worker pool: one zygote per grading process, one fresh child per solution run.

    pool = WorkerPool.shared()
    with pool.open(spec, problem.limits.load_timeout(spec.cuda), cancel=token) as worker:
        if worker.load_error: ...
        result = worker.call(args, kwargs, snapshot=("model",), timeout=3.0)

A worker's state: starting -> ready -> busy -> ready ... -> exited (or errored when its solution
failed to load). Killing a worker kills its whole session; the zygote also kills orphans.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import queue
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import IO, TYPE_CHECKING, Any, Literal

from infrakata.core.errors import SandboxUnavailable
from infrakata.core.limits import MEMORY_COUNTED, MIB, OUTPUT_SHOWN_BYTES, RSS_POLL_S, wall_backstop
from infrakata.core.sandbox import kernel_cache, procfs
from infrakata.core.sandbox.gpu import compute_mode_problem
from infrakata.core.sandbox.policy import zygote_environment
from infrakata.core.sandbox.protocol import (
    HARNESS_FAILED,
    HARNESS_OUT_OF_MEMORY,
    NO_IDLE_IMPORTS,
    STACK_SIGNAL,
    TORCH_FREE,
    WORKER_NAME,
    CallRequest,
    ErrorInfo,
    Exited,
    Forked,
    ForkRequest,
    Gpu,
    KernelMeasures,
    Layer,
    ProtocolError,
    Ready,
    Reply,
    SolutionSpec,
    SpareStarted,
    clean_text,
    decode_event,
    encode_event,
    reply_from_wire,
    started_from_wire,
)
from infrakata.core.sandbox.recording import Recording, TraceLevel
from infrakata.core.sandbox.wire import (
    FrameError,
    FrameReader,
    UnsafeValue,
    decode_untrusted,
    encode_trusted,
    write_frame,
)

if TYPE_CHECKING:
    from infrakata.core.sandbox.arena import InputArena  # torch: imported by whoever makes an arena, not by the pool

log = logging.getLogger("infrakata.sandbox")
PAUSE_WAIT_S = 1.0  # for a stopped worker to be seen stopped
STACK_WAIT_S = 0.25  # for a worker asked where it is (a timeout) to write its stack
ISOLATION_MODES = ("best", "strict")
ZYGOTE_ENVIRONMENT = {
    # The zygote forks, so it must stay single-threaded: BLAS libraries start their thread pools at import.
    "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    # Triton 3.9 warns on every compile that its default will change; keep today's default, quietly,
    # so a learner's output shows their own prints.
    "TRITON_DEFAULT_FP_FUSION": os.environ.get("TRITON_DEFAULT_FP_FUSION", "1"),
}




def missing_layers(layers: tuple[Layer, ...] | list[Layer]) -> list[Layer]:
    return [layer for layer in layers if not layer.active]


def cuda_refusal_message(refusal: str) -> str | None:
    """The CUDA probe's failure as the reason CUDA work is refused, with what to do (None: it held)."""
    if not refusal:
        return None
    return (f"CUDA grading is refused on this machine: {refusal}. CUDA work never runs unconfined; `kata doctor` "
            f"shows the CUDA workers' layers, and docs/SECURITY.md (CUDA workers) what each needs")


# How a call into a worker ended: it returned ("ok") or raised ("error"); the pool stopped it (a limit, a crash,
# a cancel); or it was not made, after an earlier call's timeout ("skipped"). A worker's load answers "started"
# (its first word) and then "ready" where the solution loaded.
CallStatus = Literal["ok", "error", "timeout", "memory", "crashed", "cancelled", "skipped", "started", "ready"]


@dataclass
class CallResult:
    """What one call into a worker came back with, as the pool read it off the wire: the value (or the error)
    and what the worker measured of the call. It says nothing of right or wrong: the grader compares `value`
    (and `state`, the arguments as the call left them) with the reference's, and makes a CaseResult."""

    status: CallStatus
    value: Any = None
    state: dict[Any, Any] = field(default_factory=dict)
    error: ErrorInfo | None = None
    time_ms: float = 0.0
    output: str = ""
    recording: Recording | None = None  # the returning line, the writes, the values (trace.py)
    launches: int = 0  # Triton kernels the call launched, as the worker counted them (a teaching guard)
    kernels: KernelMeasures | None = None  # what they did, as the Triton interpreter measured it (likewise)


class CancelToken:
    """Cancels a run from another thread: kills the worker in flight at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._workers: set[Worker] = set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            workers = list(self._workers)
        for worker in workers:
            worker.kill()

    def _attach(self, worker: Worker) -> None:
        with self._lock:
            self._workers.add(worker)
            cancelled = self._cancelled
        if cancelled:
            worker.kill()

    def _detach(self, worker: Worker) -> None:
        with self._lock:
            self._workers.discard(worker)


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


# A worker's life: starting (forked, loading the solution), ready (between calls), busy (in a call),
# errored (the solution failed to load: every call answers that error), exited (its process is gone).
WorkerState = Literal["starting", "ready", "busy", "errored", "exited"]


class Worker:
    """One solution's process for one run, handed out by the zygote: its calls, each under a time
    limit, until it is closed or dies (`state` says which)."""

    def __init__(self, pool: WorkerPool, spec: SolutionSpec, cancel: CancelToken | None, load_timeout: float,
                 arena: InputArena | None = None):
        self.pool, self.spec, self.cancel = pool, spec, cancel
        self.state: WorkerState = "starting"
        self.load_error: ErrorInfo | None = None
        self.exit_code: int | None = None
        self.layers: tuple[Layer, ...] = ()  # what confines it, as it said before the solution ran
        self._output = tempfile.TemporaryFile()
        self._output_read = 0
        self.output_parts: list[str] = []
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        try:
            fds = [to_child_r, from_child_w, self._output.fileno()] + ([arena.fd] if arena is not None else [])
            self.pid = pool._fork(fds, spec.cuda, spec.trusted)
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self._reader = FrameReader(self._from_child, spec.limits.reply_bytes)
        self._seq = 0
        # Resident bytes of the worker's processes when it started (before the solution ran): what its
        # memory limit is counted over. Processes the solution starts count by what they hold alone.
        self._baseline: dict[int, int] = {}
        self._next_poll = 0.0  # when the tree's memory is next read
        if cancel is not None:
            cancel._attach(self)
        self.state = "busy"
        ready = started = self._request(spec, load_timeout)
        if started.status == "started":
            ready = self._start(started, load_timeout)
        if ready.status == "ready":
            self.state = "ready"
        else:
            if not self.exited():  # its process may have gone while it loaded
                self.state = "errored"
            self.load_error = ready.error or ErrorInfo("Crashed", "the worker did not start", "crashed")
        log.debug("worker %s: %s", self.pid, self.state)

    def _start(self, started: CallResult, load_timeout: float) -> CallResult:
        """The worker's first word (its baseline and layers), then the solution loaded or not."""
        try:
            info = started_from_wire(started.value)
        except ProtocolError as error:
            return self._refuse(f"its first reply was malformed ({error})", time.perf_counter())
        self.layers = info.layers
        missing = missing_layers(self.layers)
        if self.pool.isolation == "strict" and not self.spec.trusted and (missing or not self.layers):
            self.kill()
            raise SandboxUnavailable(strict_refusal(missing or [Layer("isolation", False, "no layer was applied")]))
        self._baseline = {pid: procfs.resident_bytes(pid) or 0 for pid in procfs.tree(self.pid)}
        self._next_poll = time.perf_counter() + RSS_POLL_S
        return self._receive(time.perf_counter(), load_timeout, 0, self._queued())

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        return self.state in ("ready", "errored")

    def exited(self) -> bool:
        return self.state == "exited"

    def died_meanwhile(self) -> bool:
        """Whether a worker kept between calls has died since its last one: a live one writes nothing
        then, so its reply pipe at end of file says it is gone (and it is reaped)."""
        if self.state != "exited":
            readable, _, _ = select.select([self._from_child], [], [], 0)
            if readable and not self._reader.feed():
                self._wait_exit()
        return self.state == "exited"

    def call(self, args: tuple[Any, ...], kwargs: dict[str, Any], *, snapshot: tuple[int | str, ...] = (),
             timeout: float, device: str = "cpu", trace: TraceLevel = "off",
             watch: tuple[int | str, ...] = (), graded: tuple[int | str, ...] = ()) -> CallResult:
        return self._request(CallRequest("call", args=tuple(args), kwargs=dict(kwargs), snapshot=tuple(snapshot),
                                         device=device, trace=trace, watch=tuple(watch), graded=tuple(graded)),
                             timeout)

    def harness(self, target: str, payload: Any, *, timeout: float, args: tuple[Any, ...] = ()) -> CallResult:
        """A trusted harness function of the worker's (`target`, "module:function") given the entry point,
        `payload` and `args` (placeholders over the run's arena, as a call's are)."""
        return self._request(CallRequest("harness", target=target, payload=payload, args=tuple(args)), timeout)

    def _request(self, message: SolutionSpec | CallRequest, timeout: float) -> CallResult:
        if self.state == "exited":
            return CallResult("crashed", error=ErrorInfo("WorkerExited", "the solution process is gone", "crashed"))
        if self.state == "ready":
            self.state = "busy"
        if isinstance(message, CallRequest):
            self._seq += 1
            message = replace(message, seq=self._seq)
        queued = self._queued()
        started = time.perf_counter()
        try:
            write_frame(self._to_child, encode_trusted(message))
        except BrokenPipeError:
            return self._died(started)
        return self._receive(started, timeout, self._seq, queued)

    def _queued(self) -> dict[int, float]:
        """The run-queue time of each of the worker's processes so far (core/limits.py: the clock)."""
        return {pid: procfs.queued_seconds(pid) for pid in procfs.tree(self.pid)}

    def _receive(self, started: float, timeout: float, seq: int, queued: dict[int, float]) -> CallResult:
        """The reply to request `seq`, within `timeout` on the grader's clock less what the machine's load
        kept the worker waiting to run (`queued`: its processes' run-queue times when the request went)."""
        excused = 0.0  # read only once the wall clock passes the limit: a quick reply costs no /proc
        backstop = wall_backstop(timeout)
        try:
            while (frame := self._reader.pop()) is None:
                elapsed = time.perf_counter() - started
                if elapsed >= min(timeout + excused, backstop):
                    excused = max((procfs.queued_seconds(pid) - queued.get(pid, 0.0) for pid in procfs.tree(self.pid)),
                                  default=0.0)
                    if elapsed >= min(timeout + excused, backstop):
                        printed = self._read_output()
                        running = self._line_running()
                        self.kill()
                        self._wait_exit()
                        starved = f": the machine kept it waiting for {elapsed:.0f} s" if excused > timeout else ""
                        return self._result("timeout", ErrorInfo(
                            "TimeLimitExceeded", f"time limit exceeded ({timeout:g} s){starved}" + (
                                " while this line ran" if running else ""), "timeout", line=running),
                                            started, printed)
                remaining = min(timeout + excused, backstop) - elapsed
                readable, _, _ = select.select([self._from_child], [], [], min(remaining, RSS_POLL_S))
                if readable and not self._reader.feed():
                    return self._died(started)
                if time.perf_counter() < self._next_poll:
                    continue  # a quick reply costs no reading of /proc
                self._next_poll = time.perf_counter() + RSS_POLL_S
                used = self._memory_used()
                if used is not None and used > self.spec.limits.memory_bytes:
                    self.kill()
                    self._wait_exit()
                    limit = self.spec.limits.memory_bytes // MIB
                    return self._result("memory", ErrorInfo("MemoryError", f"memory limit exceeded: the solution's "
                                                            f"processes held {used / MIB:,.0f} MiB; the kata allows "
                                                            f"{limit} MiB {MEMORY_COUNTED}", "memory"),
                                        started)
            reply = read_reply(frame)
        except (FrameError, ProtocolError) as error:
            return self._refuse(str(error), started)
        except UnsafeValue as error:  # well-formed, and in step: the worker may be asked again
            if self.state == "busy":
                self.state = "ready"
            return self._result("error", ErrorInfo("UnsafeOutput", f"the solution returned what the grader will "
                                                   f"not read: {error}; return tensors, numbers, strings, None, or "
                                                   f"tuples/lists/dicts of them"), started)
        if reply.seq != seq:
            return self._refuse(f"it answered request {reply.seq} when {seq} was asked", started)
        if self.state == "busy":
            self.state = "ready"
        status = "memory" if reply.error is not None and reply.error.kind == "memory" else reply.status
        result = self._result(status, reply.error, started)
        result.time_ms, result.launches, result.kernels = reply.time_ms or result.time_ms, reply.launches, reply.kernels
        result.recording = reply.recording
        result.value, result.state = reply.value, reply.state  # admitted as they were read (wire.decode_untrusted)
        return result

    def _memory_used(self) -> int | None:
        """What the worker's processes hold over their start (None: nothing to poll, RLIMIT_AS bounds a
        lone CPU worker). Polled for a CUDA worker (no RLIMIT_AS there) and for any worker that started
        processes of its own (RLIMIT_AS is per process)."""
        if not self._baseline:
            return None
        tree = procfs.tree(self.pid)
        started = [pid for pid in tree if pid not in self._baseline]
        if not started and not self.spec.limits.poll_resident:
            return None
        used = sum(max(0, (procfs.resident_bytes(pid) or 0) - base) for pid, base in self._baseline.items()
                   if pid in tree)
        return used + sum(procfs.private_bytes(pid) for pid in started)

    def _refuse(self, why: str, started: float) -> CallResult:
        """The worker broke the protocol: killed, and the case is a crash that says what it sent."""
        self.kill()
        self._wait_exit()
        return self._result("crashed", ErrorInfo("ProtocolError", f"the solution process was stopped: {why}",
                                                 "crashed"), started)

    def _result(self, status: CallStatus, error: ErrorInfo | None, started: float, printed: str = "") -> CallResult:
        return CallResult(status, error=error, time_ms=(time.perf_counter() - started) * 1e3,
                          output=printed + self._read_output())

    def _line_running(self) -> int | None:
        """The line of the solution's file its call is running, from the stack the worker dumps when asked
        (STACK_SIGNAL): the most recent frame in that file. The dump is not the solution's output, and is not
        shown as such. None where the worker does not answer within STACK_WAIT_S."""
        workers = [pid for pid in procfs.tree(self.pid) if procfs.command_name(pid) == WORKER_NAME]
        worker = next((pid for pid in workers if procfs.parent(pid) not in workers), None)
        if worker is None:
            return None
        size = os.fstat(self._output.fileno()).st_size
        try:
            os.kill(worker, STACK_SIGNAL)
        except OSError:
            return None
        deadline, dumped = time.monotonic() + STACK_WAIT_S, b""
        while time.monotonic() < deadline:
            time.sleep(0.005)
            grown = os.fstat(self._output.fileno()).st_size
            complete = b"(most recent call first):" in dumped and size + len(dumped) == grown  # no longer growing
            if complete:
                break
            dumped = os.pread(self._output.fileno(), min(grown - size, 1 << 16), size)
        self._output_read = max(self._output_read, size + len(dumped))
        quoted = re.escape(self.spec.filename.encode())
        found = re.search(rb'File "' + quoted + rb'", line (\d+)', dumped)
        return int(found.group(1)) if found else None

    def _died(self, started: float) -> CallResult:
        code = self._wait_exit()
        if code is None and self.pool.zygote_lost():
            # Its zygote died (it takes its workers with it): no verdict of the solution's, the run is not graded.
            raise SandboxUnavailable("the grading worker pool died during the run (its zygote exited); grade again")
        if self.cancel is not None and self.cancel.cancelled:
            return self._result("cancelled", ErrorInfo("Cancelled", "cancelled by a newer run", "cancelled"), started)
        if code is not None and code < 0 and -code == signal.SIGXCPU:
            return self._result("timeout", ErrorInfo("TimeLimitExceeded", "CPU time limit exceeded", "timeout"),
                                started)
        if code is None:
            what = "the solution process died"
        elif code < 0:
            what = f"the solution process was killed by {_signal_name(code)}"
            if -code == signal.SIGSEGV:
                what += " (segmentation fault)"
        elif code == HARNESS_OUT_OF_MEMORY:
            limit = self.spec.limits.memory_bytes // MIB
            return self._result("memory", ErrorInfo("MemoryError", f"memory limit exceeded: the solution left too "
                                                    f"little of its {limit} MiB to send its result", "memory"),
                                started)
        elif code == HARNESS_FAILED:
            result = self._result("crashed", None, started)
            failure = next((line for line in reversed(result.output.splitlines()) if line.strip()), "no traceback")
            result.error = ErrorInfo("Crashed", f"the worker's grading harness failed (not the solution's code): "
                                                f"{failure}", "crashed")
            return result
        else:
            what = f"the solution process exited with code {code} (os._exit or a native abort)"
        return self._result("crashed", ErrorInfo("Crashed", what, "crashed"), started)

    def _read_output(self) -> str:
        kept = sum(len(p) for p in self.output_parts)
        size = os.fstat(self._output.fileno()).st_size
        if size <= self._output_read:
            return ""
        chunk = os.pread(self._output.fileno(), max(0, min(size - self._output_read, OUTPUT_SHOWN_BYTES - kept)),
                         self._output_read)
        text = clean_text(chunk.decode("utf-8", "replace"))
        if size - self._output_read > len(chunk):
            text += f"\n[... {size - self._output_read - len(chunk)} more bytes of output not shown]\n"
        self._output_read = size
        self.output_parts.append(text)
        return text

    def _wait_exit(self) -> int | None:
        if self.state != "exited":
            self.exit_code = self.pool._wait_exit(self.pid, timeout=5.0)
            self.state = "exited"
            log.debug("worker %s: exited (%s)", self.pid, self.exit_code)
        return self.exit_code

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The worker's whole process group stopped (SIGSTOP) for the duration: nothing it runs can act."""
        self._signal(signal.SIGSTOP)
        deadline = time.monotonic() + PAUSE_WAIT_S
        # A stop is delivered asynchronously, to each thread of each process in turn.
        while self.state != "exited" and not all(procfs.stopped(pid) for pid in procfs.tree(self.pid)) \
                and time.monotonic() < deadline:
            time.sleep(0.001)
        try:
            yield
        finally:
            self._signal(signal.SIGCONT)

    def _signal(self, number: int) -> None:
        if self.state != "exited":
            try:
                os.killpg(self.pid, number)
            except OSError:
                pass

    def kill(self) -> None:
        if self.state == "exited":
            return
        for kill in (os.killpg, os.kill):  # the group may not exist yet if the child just forked
            try:
                kill(self.pid, signal.SIGKILL)
                return
            except ProcessLookupError:
                continue
            except PermissionError:
                return

    def close(self) -> None:
        kept = self.pool.kernel_caches
        if self.state == "ready" and kept is not None and kernel_cache.applies(self.spec) \
                and not (self.cancel and self.cancel.cancelled):
            # What it compiled, for the next worker grading the same file (core/sandbox/kernel_cache.py).
            collected = self.harness(kernel_cache.COLLECT, {"given": kernel_cache.given(self.spec)},
                                     timeout=kernel_cache.COLLECT_TIMEOUT_S)
            if collected.status == "ok":
                kept.keep(self.spec, collected.value)
        if self.state != "exited":
            # Killed at once; its exit is collected by the zygote without anyone waiting for it.
            self.kill()
            self.pool._forget(self.pid)
            self.state = "exited"
        if self.cancel is not None:
            self.cancel._detach(self)
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self._output.close()


def read_reply(frame: bytes | bytearray) -> Reply:
    """A worker's frame as a Reply, or ProtocolError (or UnsafeValue for a well-formed value the grader will not
    take): whatever the bytes, nothing else is raised."""
    try:
        return reply_from_wire(decode_untrusted(frame))
    except (ProtocolError, UnsafeValue):
        raise
    except Exception as error:  # noqa: BLE001 - the parser's refusals, and whatever else hostile bytes cause
        raise ProtocolError(f"its reply could not be read ({type(error).__name__}: {clean_text(str(error), 300)})") \
            from None


def strict_refusal(missing: list[Layer]) -> str:
    return ("isolation is \"strict\" and the sandbox lacks: " + "; ".join(f"{m.name} ({m.detail})" for m in missing)
            + ". Run `kata doctor` for what each layer needs, or set isolation = \"best\"")


def _forward_output(stream: IO[bytes]) -> None:
    """What the zygote and its workers print before a run (a spare's failure, CUDA's warnings) goes to
    this process's log through a pipe of its own: none of them ever holds this process's stdout or
    stderr, so one that outlived it could not hang whoever reads them."""
    for line in stream:
        log.warning("zygote: %s", line.decode("utf-8", "replace").rstrip())
    stream.close()


class WorkerPool:
    """One grading process's warm pool: starts the zygote (and restarts it when it dies), asks it for
    workers, and hears of their exits; `Worker` is one run's process, over this pool."""

    _shared: WorkerPool | None = None
    _shared_lock = threading.Lock()

    def __init__(self, torch_free: bool = False, keep_kernels: bool = True) -> None:
        """`keep_kernels`: what a solution file's workers compiled is given to the next worker grading that
        file (core/sandbox/kernel_cache.py); off where the sources graded are not files of one author
        each (the Python API's: each source is a submission of its own)."""
        # A pool of torch-free workers (SolutionSpec.torch_free), whose zygote never imports torch; the pool
        # that grades everything else opens one for those runs (open) and closes it with itself.
        self.torch_free = torch_free
        self._torch_free_pool: WorkerPool | None = None
        self._lock = threading.Lock()
        self._fork_lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._ready = threading.Event()
        self._pids: queue.Queue[int | None] = queue.Queue()  # the current zygote's answers to fork requests
        self._exits: dict[int, int | None] = {}
        self._exit_events: dict[int, threading.Event] = {}
        self._exit_lock = threading.Lock()
        self._forgotten: set[int] = set()  # workers closed without waiting for their exit
        self.info: dict[str, Any] = {}
        self.isolation_layers: tuple[Layer, ...] = ()  # as the zygote's probe found them
        self.cuda_isolation_layers: tuple[Layer, ...] = ()  # a CUDA worker's, as the CUDA probe found them
        self.cuda_refusal = ""  # why the CUDA probe refuses CUDA work here ("": it held, or there is no CUDA)
        self.isolation = "best"  # or "strict": refuse to grade without every layer (ISOLATION_MODES)
        # What each solution file's workers compiled, or None: nothing passes from one worker to another.
        self.kernel_caches = kernel_cache.KernelCaches() if keep_kernels else None
        # The zygote imports, when idle, what only some solutions need (torch._dynamo, seconds): worth it to a
        # long-lived pool (the server, `kata watch`), a wait for the first fork of a one-shot command's. Read at start.
        self.idle_imports = True
        self.gpus: tuple[Gpu, ...] = ()  # the visible CUDA devices and their compute modes, as the zygote found them
        # The workers of each kind (CUDA or not) started ahead of need, by their pids, readiest first.
        self.spares: dict[bool, list[int]] = {}
        # Trusted workers a Runner keeps open between gradings (a device problem's reference, for its fresh
        # cases), by their pids: like the spares, kept ahead of need, and ended with the pool at the latest.
        self.kept: set[int] = set()
        self._runtime: str | None = None

    @classmethod
    def shared(cls) -> WorkerPool:
        with cls._shared_lock:
            if cls._shared is None:
                cls._shared = cls()
                atexit.register(cls._shared.close)
            return cls._shared

    def start(self) -> None:
        """Start warming the zygote in the background (idempotent)."""
        if not hasattr(os, "fork") or not hasattr(socket, "send_fds"):
            raise SandboxUnavailable("grading needs fork and Unix sockets (Linux or macOS); on Windows use WSL")
        with self._lock:
            if self._process is not None and self._process.poll() is None and self._sock is not None:
                return
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            self._ready.clear()
            self.spares.clear()
            self._pids = queue.Queue()  # nothing a dead zygote's reader left is read as this one's answer
            # The workers' folders live here; workers of other uids (as root) must be able to enter it.
            self._runtime = tempfile.mkdtemp(prefix="infrakata-")
            os.chmod(self._runtime, 0o711)
            # Trusted code imports nothing from the working directory: it runs in the private runtime
            # folder, with -P (Python 3.11+) keeping even that off sys.path.
            flags = ["-P"] if sys.version_info >= (3, 11) else []
            self._process = subprocess.Popen(
                [sys.executable, *flags, "-m", "infrakata.core.sandbox.zygote", str(theirs.fileno()), self._runtime,
                 *([] if self.idle_imports else [NO_IDLE_IMPORTS]), *([TORCH_FREE] if self.torch_free else [])],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, start_new_session=True, cwd=self._runtime,
                env={**zygote_environment(dict(os.environ)), **ZYGOTE_ENVIRONMENT})
            theirs.close()
            self._sock = ours
            threading.Thread(target=self._read_events, args=(ours, self._pids), name="kata-zygote",
                             daemon=True).start()
            threading.Thread(target=_forward_output, args=(self._process.stdout,), name="kata-zygote-output",
                             daemon=True).start()
            log.info("zygote %s: starting", self._process.pid)

    def _read_events(self, sock: socket.socket, pids: queue.Queue[int | None]) -> None:
        while True:
            try:
                data = sock.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            event = decode_event(data)
            if isinstance(event, Ready):
                self.info = asdict(event)
                self.isolation_layers, self.gpus = event.isolation, event.gpus
                self.cuda_isolation_layers, self.cuda_refusal = event.cuda_isolation, event.cuda_refusal
                self._ready.set()
                log.info("zygote: ready %s", event)
            elif isinstance(event, SpareStarted):
                self.spares.setdefault(event.cuda, []).append(event.pid)
            elif isinstance(event, Forked):
                for kind in self.spares.values():
                    if event.pid in kind:  # handed out: no longer a spare
                        kind.remove(event.pid)
                pids.put(event.pid)
            elif isinstance(event, Exited):
                with self._exit_lock:
                    if event.pid in self._forgotten:
                        self._forgotten.discard(event.pid)
                        continue
                    self._exits[event.pid] = event.code
                    self._exit_events.setdefault(event.pid, threading.Event()).set()
        with self._lock:
            lost = self._sock is sock  # not closed by us: the zygote died (its socket read end-of-file)
            if lost:
                self._sock = None
        if lost:
            log.warning("zygote: exited")
            pids.put(None)  # a fork waiting for its answer is told at once
            self._ready.set()  # and so is a wait for the zygote to start: it finds no socket
        with self._exit_lock:
            for waiter in self._exit_events.values():
                waiter.set()

    def wait_ready(self, timeout: float = 120.0) -> dict[str, Any]:
        self.start()
        if not self._ready.wait(timeout) or self._sock is None:
            raise SandboxUnavailable("the grading worker pool did not start; see the log for the zygote's error")
        return self.info

    def layers_in_use(self) -> tuple[Layer, ...]:
        """The layers of the workers this pool and its torch-free pool have confined (a pool whose zygote never
        started has none to say): what a run's warning reads."""
        torch_free = self._torch_free_pool
        return (*self.isolation_layers, *(torch_free.isolation_layers if torch_free is not None else ()))

    def check_isolation(self) -> None:
        """With isolation "strict", refuse (SandboxUnavailable) unless every layer holds here."""
        self.wait_ready()
        missing = missing_layers(self.isolation_layers)
        if self.isolation == "strict" and (missing or not self.isolation_layers):
            raise SandboxUnavailable(strict_refusal(missing))

    def check_cuda(self) -> None:
        """Refuse (SandboxUnavailable) CUDA work on a GPU whose compute mode cannot hold grading's processes,
        where the CUDA probe failed, and, with isolation "strict", where a CUDA worker lacks a layer."""
        self.wait_ready()
        problem = compute_mode_problem(self.gpus) or cuda_refusal_message(self.cuda_refusal)
        if problem is not None:
            raise SandboxUnavailable(problem)
        missing = missing_layers(self.cuda_isolation_layers)
        if self.isolation == "strict" and missing:
            raise SandboxUnavailable(strict_refusal(missing))

    def _fork(self, fds: list[int], cuda: bool, trusted: bool = False) -> int:
        request = encode_event(ForkRequest(cuda, trusted))
        for attempt in range(2):
            self.wait_ready()
            with self._fork_lock:
                try:
                    if self._sock is None:
                        raise OSError("the zygote's socket is closed")
                    socket.send_fds(self._sock, [request], fds)
                    pid = self._pids.get(timeout=30)
                except (OSError, AttributeError, queue.Empty):
                    pid = None
            if pid is not None:
                with self._exit_lock:
                    self._exit_events.setdefault(pid, threading.Event())
                return pid
            log.warning("zygote: lost; restarting (attempt %d)", attempt + 1)
            self._restart()
        raise SandboxUnavailable("the grading worker pool crashed twice in a row")

    def zygote_lost(self) -> bool:
        """Whether the zygote this pool started has died (its socket read end-of-file)."""
        with self._lock:
            return self._sock is None and self._process is not None

    def _restart(self) -> None:
        with self._lock:
            process, self._process = self._process, None
            if self._sock is not None:
                self._sock.close()
                self._sock = None
        if process is not None:
            process.kill()
            process.wait()
        if self._runtime is not None:  # the zygote removes it when it leaves; not when it was killed
            shutil.rmtree(self._runtime, ignore_errors=True)
            self._runtime = None

    def _wait_exit(self, pid: int, timeout: float) -> int | None:
        with self._exit_lock:
            event = self._exit_events.setdefault(pid, threading.Event())
        event.wait(timeout)
        with self._exit_lock:
            self._exit_events.pop(pid, None)
            return self._exits.pop(pid, None)

    def _forget(self, pid: int) -> None:
        with self._exit_lock:
            self._exit_events.pop(pid, None)
            if self._exits.pop(pid, None) is None:
                self._forgotten.add(pid)

    def open(self, spec: SolutionSpec, load_timeout: float, *, cancel: CancelToken | None = None,
             arena: InputArena | None = None) -> Worker:
        serving = self._serving(spec, arena)
        if serving is not self:
            return serving.open(spec, load_timeout, cancel=cancel)
        # Here, where the pool that runs it is known: a run that needs no torch never starts this one's zygote.
        self.check_isolation()
        if spec.cuda:
            self.check_cuda()
        if self.kernel_caches is not None and kernel_cache.applies(spec):
            spec = self.kernel_caches.attach(spec)
        return Worker(self, spec, cancel, load_timeout, arena)

    def start_for(self, spec: SolutionSpec) -> None:
        """Start warming the zygote that will run `spec` (the torch-free one, where it needs no torch)."""
        self._serving(spec).start()

    def _serving(self, spec: SolutionSpec, arena: InputArena | None = None) -> WorkerPool:
        """The pool whose workers run `spec`: a run that needs no torch and shares no tensors (an arena is
        torch's memory) goes to the torch-free pool."""
        return self._without_torch() if spec.torch_free and arena is None and not self.torch_free else self

    def _without_torch(self) -> WorkerPool:
        """The pool of torch-free workers, started at its first run, held to this pool's isolation."""
        with self._lock:
            if self._torch_free_pool is None:
                self._torch_free_pool = WorkerPool(torch_free=True)
            pool = self._torch_free_pool
        pool.isolation = self.isolation  # checked as it opens a worker
        return pool

    def close(self) -> None:
        with self._lock:
            torch_free, self._torch_free_pool = self._torch_free_pool, None
        if torch_free is not None:
            torch_free.close()
        self._restart()
