"""The solution process: its confinement, limits, the run-time guard, the solution module, and its
call loop.

Runs in a child forked by the zygote, in a session of its own, confined (core/sandbox/confine.py)
before it is handed a run. It holds the case inputs it is sent and never the reference or the
expected outputs; the problem code it needs (to unpickle inputs) comes as source, because it may
not read the problem's folder.
"""

from __future__ import annotations

import builtins
import errno
import importlib
import importlib.abc
import importlib.machinery
import linecache
import os
import re
import resource
import signal
import socket
import sys
import time
import traceback
import types
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn

from infrakata.core import torch_stand_in
from infrakata.core.limits import MEMORY_COUNTED, MIB, WorkerLimits
from infrakata.core.sandbox import kernel_cache, trace, tripwires
from infrakata.core.sandbox.confine import Confinement, Spare
from infrakata.core.sandbox.libc import PR_SET_NAME, c_library
from infrakata.core.sandbox.lifeline import die_with_parent
from infrakata.core.sandbox.protocol import (
    HARNESS_FAILED,
    HARNESS_OUT_OF_MEMORY,
    WORKER_NAME,
    CallRequest,
    ErrorInfo,
    ErrorKind,
    Layer,
    Reply,
    SolutionSpec,
    reply_to_wire,
)
from infrakata.core.sandbox.tripwires import ForbiddenError, why_refused
from infrakata.core.sandbox.wire import (
    decode_trusted,
    encode_untrusted,
    read_frame_blocking,
    sanitize,
    snapshot,
    write_frame,
)

if TYPE_CHECKING:
    from infrakata.core.sandbox.arena import WorkerArena
    from infrakata.core.sandbox.kernel_meter import Meter  # torch: imported by a run that has an arena (tensors)

SOLUTION_MODULE = "solution"
ONEDNN_FLOOR_BYTES = 64 * MIB  # below this memory limit a worker does without oneDNN (apply_limits)
_limits: WorkerLimits | None = None  # this process's, once applied: memory messages quote them
NEEDS_TORCH = ErrorInfo("TorchNotLoaded", "the solution's code reached torch in a worker without it", "needs_torch")


def prctl(option: int, value: int | bytes) -> None:
    """Linux process controls; a no-op elsewhere (macOS has none of these options)."""
    if sys.platform.startswith("linux"):
        c_library().prctl(option, value)


def _vm_size_bytes() -> int | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def warm_cuda() -> None:
    """Initialise what a kernel's first call would otherwise pay for: the CUDA context, torch's CUDA
    libraries (its kernels and cuBLAS) and Triton's driver. Done in a worker started ahead of need."""
    import torch

    torch.cuda.init()
    x = torch.ones(8, 8, device="cuda")
    (x @ x).sum().item()
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def first_kernel(x_ptr):  # type: ignore[no-untyped-def]
            tl.store(x_ptr, 1.0)

        # A launch takes Triton's whole path once (driver, compiler and launcher modules, its disk
        # cache), so the solution's first call pays only for its own kernels.
        first_kernel[(1,)](x)
        torch.cuda.synchronize()
    except Exception as error:  # noqa: BLE001 - a kernel's first call will say what is wrong
        print(f"kata worker: Triton did not start on CUDA: {error}", file=sys.stderr)


def apply_limits(limits: WorkerLimits) -> None:
    """This process's share of the limits (core/limits.py); the grader watches the rest."""
    global _limits
    _limits = limits
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # Printing megabytes fails with EFBIG (reported as an output limit) instead of killing the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.output_bytes, limits.output_bytes))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    torch = torch_stand_in.loaded_torch()
    if torch is not None and limits.memory_bytes < ONEDNN_FLOOR_BYTES and not limits.cuda:
        # oneDNN compiles kernels for each new shape of a half-precision product (hundreds of KiB of code
        # a shape, on CPUs with AVX512-FP16; a segfault when they do not fit): under a limit of a few MiB a
        # solution would pay for the library's compiler. torch's own kernels compute the same there.
        torch.backends.mkldnn.enabled = False
    # Address-space headroom over what the warm process already maps (torch maps a lot). macOS does
    # not enforce RLIMIT_AS; there the time limit and the machine's memory are the bounds.
    vm_size = _vm_size_bytes()
    if vm_size is not None and not limits.poll_resident:
        limit = vm_size + limits.memory_bytes
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if limits.cuda and limits.gpu_memory_bytes is not None:
        import torch

        total = torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory
        torch.cuda.set_per_process_memory_fraction(min(1.0, limits.gpu_memory_bytes / total))


def _matches(name: str, forbidden: tuple[str, ...]) -> str | None:
    return next((m for m in forbidden if name == m or name.startswith(m + ".")), None)


def _guarded_builtins(modules: tuple[str, ...], calls: tuple[str, ...]) -> dict[str, Any]:
    """The solution module's builtins: imports checked, forbidden builtins replaced by refusals."""
    real_import = builtins.__import__

    def check(name: str) -> None:
        module = _matches(name, modules)
        if module:
            raise ForbiddenError(f"module '{module}' is forbidden in this problem{why_refused(module)}")

    def guarded_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
                       level: int = 0) -> types.ModuleType:
        if level == 0:
            check(name)
            for item in fromlist or ():
                check(f"{name}.{item}")
        return real_import(name, globals, locals, fromlist, level)

    real_import_module = importlib.import_module

    def guarded_import_module(name: str, package: str | None = None) -> types.ModuleType:
        if sys._getframe(1).f_globals.get("__name__") == SOLUTION_MODULE and not name.startswith("."):
            check(name)
        return real_import_module(name, package)

    importlib.import_module = guarded_import_module

    table = dict(builtins.__dict__)
    table["__import__"] = guarded_import
    for call in calls:
        if call in table and call != "__import__":
            table[call] = tripwires.refusal(call)
    return table


def error_info(error: BaseException, filename: str) -> ErrorInfo:
    # A kernel's access the interpreter refused (core/sandbox/kernel_meter.py): the interpreter wraps it, and its
    # line is the load's or store's, where the traceback's deepest frame of the solution is the launch's.
    measured: BaseException | None = error
    while measured is not None and type(measured).__name__ != "KernelRuleError":
        measured = measured.__cause__
    if measured is not None:
        line = getattr(measured, "line", None)
        return ErrorInfo("KernelRuleError", str(measured), "forbidden" if getattr(measured, "forbidden", False)
                         else "exception", line if isinstance(line, int) else None)
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == filename]
    message = f"{type(error).__name__}: {error}"
    kind: ErrorKind = "exception"
    if isinstance(error, ForbiddenError) or isinstance(error.__cause__ or error.__context__, ForbiddenError):
        kind = "forbidden"
    elif _is_cuda_out_of_memory(error):
        kind, message = "memory", _gpu_memory_message(str(error))
    elif out_of_memory(error):
        kind = "memory"
        tried = re.search(r"tried to allocate (\d+) bytes", str(error))
        detail = str(error).strip()  # a bare MemoryError says nothing
        message = "memory limit exceeded" + (f": tried to allocate {int(tried.group(1)) / MIB:,.0f} MiB"
                                             if tried else f" ({type(error).__name__}: {detail})" if detail else "")
        if _limits is not None:
            message += f"; the kata allows {_limits.memory_bytes // MIB} MiB {MEMORY_COUNTED}"
    elif isinstance(error, ModuleNotFoundError) and error.name == "triton":
        message = ("ModuleNotFoundError: Triton is not available here (it exists for Linux on x86-64 only), "
                   "so kernel problems cannot run on this machine")
    elif type(error) is NotImplementedError and not str(error):
        message = "NotImplementedError: the starter's `raise NotImplementedError` is still there; write your solution"
    elif isinstance(error, OSError) and error.errno == errno.EFBIG and _limits is not None:
        message = f"output limit exceeded: the solution printed more than {_limits.output_bytes // MIB} MiB"
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(error), error)
    return ErrorInfo(type(error).__name__, message, kind, frames[-1].lineno if frames else None,
                     "".join(lines)[-4000:])


def out_of_memory(error: BaseException) -> bool:
    """Python's MemoryError, or torch's refusal of an allocation over the address-space limit."""
    return isinstance(error, MemoryError) or isinstance(error, RuntimeError) and (
        "can't allocate memory" in str(error) or "not enough memory" in str(error))


def _is_cuda_out_of_memory(error: BaseException) -> bool:
    return type(error).__name__ == "OutOfMemoryError" or (
        isinstance(error, RuntimeError) and "CUDA out of memory" in str(error))


_UNITS = {"B": 1, "KiB": 1 << 10, "MiB": MIB, "GiB": 1 << 30, "TiB": 1 << 40}


def _gpu_memory_message(text: str) -> str:
    """torch's CUDA out-of-memory message, as what was asked for against this worker's limit."""
    tried = re.search(r"Tried to allocate ([\d.]+) (B|KiB|MiB|GiB|TiB)", text)
    message = "GPU memory limit exceeded"
    if tried:
        message += f": tried to allocate {float(tried.group(1)) * _UNITS[tried.group(2)] / MIB:,.0f} MiB"
    try:
        import torch

        message += f" with {torch.cuda.memory_reserved() / MIB:,.0f} MiB already held"
    except Exception:  # noqa: BLE001 - the numbers are a courtesy
        pass
    if _limits is not None and _limits.gpu_memory_bytes is not None:
        message += f" (limit {_limits.gpu_memory_bytes // MIB} MiB of device memory per worker)"
    return message


class _ProblemModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Trusted problem code, imported from the source the grader sent (named after its file, for tracebacks):
    SolutionSpec.problem_modules at once, before the solution; importable_modules at their first import (by
    the unpickling of an input of one of their classes, typically, which most runs never make)."""

    def __init__(self, modules: tuple[tuple[str, str, str], ...]):
        self.files = {qualified: (filename, source) for qualified, filename, source in modules}

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.files:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, origin=self.files[fullname][0])

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: types.ModuleType) -> None:
        filename, source = self.files[module.__name__]
        module.__file__ = filename
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec", dont_inherit=True), module.__dict__)


def load_solution(spec: SolutionSpec) -> tuple[Callable[..., Any] | None, ErrorInfo | None]:
    module = types.ModuleType(SOLUTION_MODULE)
    module.__file__ = spec.filename
    module.__dict__["__builtins__"] = _guarded_builtins(spec.forbidden_modules, spec.forbidden_calls)
    sys.modules[SOLUTION_MODULE] = module
    # inspect.getsource (which @triton.jit uses) and tracebacks read lines through linecache: give
    # it the graded source, which may be an unsaved buffer or differ from the file on disk.
    linecache.cache[spec.filename] = (len(spec.source), None, spec.source.splitlines(True), spec.filename)
    try:
        code = compile(spec.source, spec.filename, "exec", dont_inherit=True)
        exec(code, module.__dict__)
    except BaseException as error:  # noqa: BLE001 - the solution's own failure is reported, not raised
        return None, error_info(error, spec.filename)
    entry = module.__dict__.get(spec.entry_point)
    if not callable(entry):
        return None, ErrorInfo("NameError", f"the solution defines no function '{spec.entry_point}' (the entry point)")
    trace.loaded(spec.source, code, entry, spec.entry_point)  # what recording a call needs
    return entry, None


def _respond(fd: int, reply: Reply) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        payload = encode_untrusted(reply_to_wire(reply))
    except Exception as error:  # noqa: BLE001 - e.g. a tensor that cannot be serialized
        failure = ErrorInfo(type(error).__name__, f"the solution's output could not be serialized: {error}")
        if out_of_memory(error):  # the memory limit, not the output: too little of it was left to send it
            limit = f"{_limits.memory_bytes // MIB} MiB" if _limits is not None else "limit"
            failure = ErrorInfo("MemoryError", f"memory limit exceeded: the solution left too little of its {limit} "
                                               f"to send its result", "memory")
        payload = encode_untrusted(reply_to_wire(Reply("error", error=failure, seq=reply.seq)))
    write_frame(fd, payload)


def to_device(value: Any, device: str) -> Any:
    """Case inputs onto the device the problem grades on (they are made on the CPU by the grader)."""
    import torch

    if isinstance(value, (torch.Tensor, torch.nn.Module)):
        return value.to(device)
    if isinstance(value, (tuple, list)):
        moved = [to_device(v, device) for v in value]
        return tuple(moved) if isinstance(value, tuple) else moved
    if isinstance(value, dict):
        return {k: to_device(v, device) for k, v in value.items()}
    return value


Harnesses = dict[str, Callable[..., Any]]


def harness_functions(modules: tuple[str, ...]) -> Harnesses:
    """The trusted harness functions a request may name ("module:function"), taken from the preloaded modules
    (and the kernel cache's) before the solution loads: rebinding a name in a module afterwards changes
    nothing of what a harness request runs."""
    found: Harnesses = {}
    for name in (*modules, kernel_cache.__name__):
        found.update({f"{name}:{attribute}": value for attribute, value in vars(sys.modules[name]).items()
                      if callable(value) and not attribute.startswith("_")})
    return found


def _call(entry: Callable[..., Any], request: CallRequest, filename: str, arena: WorkerArena | None,
          harnesses: Harnesses, meter: Meter | None = None) -> Reply:
    args, kwargs = request.args, request.kwargs
    if arena is not None:
        args, kwargs = arena.arguments(args, kwargs)
    if request.device != "cpu" and request.op == "call":
        args, kwargs = to_device((tuple(args), dict(kwargs)), request.device)
    if request.op == "harness":
        # A harness takes the entry point, its payload and the request's arguments (a trial's inputs, over the
        # arena: core/grading/kinds/kernelbench.py), and moves what it needs to the device itself.
        if request.target not in harnesses:
            return Reply("error", error=ErrorInfo("UnknownHarness", f"no harness {request.target!r} in this worker"),
                         seq=request.seq)
        args, call = (entry, request.payload, *args), harnesses[request.target]
    else:
        call = entry
    # the returning line, the writes and the values of a call; never inside a harness (the
    # benchmark's timed region).
    recorder = trace.start(request.trace, args, kwargs, request.watch) if request.op == "call" else None
    metered = meter if request.op == "call" else None
    if metered is not None:
        metered.begin(tuple(args), kwargs, request.graded)
    start = time.perf_counter()
    try:
        value = call(*args, **kwargs)
    except BaseException as error:  # noqa: BLE001
        elapsed = (time.perf_counter() - start) * 1e3
        launches, _ = metered.finish(None, tuple(args), kwargs) if metered is not None else (0, None)
        return Reply("error", error=error_info(error, filename), time_ms=elapsed, seq=request.seq,
                     recording=trace.stop(recorder), launches=launches)
    elapsed = (time.perf_counter() - start) * 1e3
    recording = trace.stop(recorder)
    launches, kernels = metered.finish(value, tuple(args), kwargs) if metered is not None else (0, None)
    try:
        state = {key: snapshot(kwargs[key] if isinstance(key, str) else args[key]) for key in request.snapshot}
        return Reply("ok", sanitize(value), state, time_ms=elapsed, seq=request.seq, recording=recording,
                     launches=launches, kernels=kernels)
    except Exception as error:  # noqa: BLE001 - what was returned (or left in an argument) cannot be sent
        return Reply("error", error=ErrorInfo("UnsafeOutput", f"the solution's output could not be sent to the "
                                              f"grader ({type(error).__name__}: {error})"), time_ms=elapsed,
                     seq=request.seq)


def prepare_worker(confinement: Confinement | None, spare: Spare | None, cuda: bool, lifeline: int,
                   close_in_waiter: tuple[int, ...] = ()) -> list[Layer]:
    """Everything a worker does before it is handed a run: a session of its own (killing it kills all it
    starts), dying with the zygote (`lifeline`: core/sandbox/lifeline.py), its namespaces (with a PID
    namespace, only the worker proper returns from here), CUDA's warm-up, then the rest of its
    confinement. A trusted worker (the reference's) has no confinement. -> the layers applied."""
    os.setsid()
    die_with_parent(lifeline)
    layers: list[Layer] = []
    if confinement is not None and spare is not None:
        layers, lifeline = confinement.isolate(spare, cuda, lifeline, close_in_waiter)
    if cuda:
        warm_cuda()
    if confinement is not None and spare is not None:
        namespaced = any(layer.name == "namespaces" and layer.active for layer in layers)
        layers += confinement.restrict(spare, cuda, namespaced, lifeline)
    return layers


def run_spare(sock: socket.socket, cuda: bool, confinement: Confinement, spare: Spare, lifeline: int) -> NoReturn:
    """A worker started ahead of need: it is confined and warmed up (CUDA, for a CUDA worker) while
    nobody waits, then waits for the descriptors of the run it is given and serves it as main() does.
    Its socket reads end-of-file, and it exits, if the zygote goes first."""
    fds: list[int] = []
    try:
        layers = prepare_worker(confinement, spare, cuda, lifeline, close_in_waiter=(sock.fileno(),))
        _, fds, _, _ = socket.recv_fds(sock, 16, 4)
    except BaseException:  # noqa: BLE001 - the zygote sees the exit and runs without a spare
        traceback.print_exc()
        os._exit(1)
    sock.close()
    if len(fds) not in (3, 4):  # the zygote let this spare go
        os._exit(0)
    main(fds, layers)


def main(fds: list[int], layers: list[Layer] | None = None) -> NoReturn:
    """A worker's run: limits, the trusted modules, the solution, then its calls. Never returns.
    `fds`: its input pipe, its output pipe, the file its prints go to, and (when the run has unchangeable
    tensor inputs) the arena they live in."""
    prctl(PR_SET_NAME, WORKER_NAME)
    to_child, from_child, output_fd = fds[:3]
    code = HARNESS_FAILED
    try:
        arena = None
        if len(fds) > 3:
            from infrakata.core.sandbox.arena import WorkerArena

            arena = WorkerArena(fds[3])
        os.dup2(output_fd, 1)
        os.dup2(output_fd, 2)
        os.close(output_fd)
        sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
        sys.stderr = sys.stdout
        frame = read_frame_blocking(to_child)
        if frame is None:  # the grader closed the pipe before sending the run
            os._exit(0)
        spec: SolutionSpec = decode_trusted(frame)
        apply_limits(spec.limits)
        # Before any of the solution's code runs, so the grader can believe it: what confines this worker
        # (and, as it arrives, the grader takes the baseline of the worker's memory limit).
        _respond(from_child, Reply("started", {"layers": [vars(layer) for layer in layers or ()]}))
        if layers:  # confined: the cache is this worker's own, in its private folder
            kernel_cache.restore(spec.kernel_cache)
        if spec.torch_free:  # its code imports torch only where nothing reads it
            torch_stand_in.install()
        if spec.problem_modules or spec.importable_modules:
            sys.meta_path.insert(0, _ProblemModules((*spec.problem_modules, *spec.importable_modules)))
        for qualified, _, _ in spec.problem_modules:
            importlib.import_module(qualified)
        for name in spec.preload:
            importlib.import_module(name)
        harnesses = harness_functions(spec.preload)
        # Tripwires (core/sandbox/tripwires.py): after trusted code has loaded, before the solution does.
        tripwires.install(spec.forbidden_calls, autograd=spec.autograd, count_launches=spec.count_launches,
                          eager_views=spec.eager_views)
        # A kernel kata through the interpreter: what its kernels do is measured (core/sandbox/kernel_meter.py).
        meter = None
        if spec.count_launches and os.environ.get("TRITON_INTERPRET") == "1":
            from infrakata.core.sandbox import kernel_meter

            meter = kernel_meter.install(spec.filename, spec.schedules)
        count_launches = tripwires.launches  # taken before the solution loads, as the harnesses are
        entry, load_error = load_solution(spec)
        if entry is not None:  # each call of it (a case's, or the benchmark harness's) under the eager guard
            entry = tripwires.guarded(entry)
        if torch_stand_in.met():
            entry, load_error = None, NEEDS_TORCH
        _respond(from_child, Reply("ready" if load_error is None else "error", error=load_error))
        seq = 0  # the grader numbers a worker's requests 1, 2, ...: a request that cannot be read is answered too
        while (frame := read_frame_blocking(to_child)) is not None:
            seq += 1
            try:
                request: CallRequest = decode_trusted(frame)
            except torch_stand_in.TorchNotLoaded:  # its inputs are tensors: unpickling them reached torch
                _respond(from_child, Reply("error", error=NEEDS_TORCH, seq=seq))
                continue
            if entry is None:
                _respond(from_child, Reply("error", error=load_error, seq=request.seq))
                continue
            count_launches()  # tripwires: the count comes back with the call that made the launches
            reply = _call(entry, request, spec.filename, arena, harnesses, meter)
            if torch_stand_in.met():  # whatever the code made of the stand-in's error, it was graded without torch
                reply = Reply("error", error=NEEDS_TORCH, seq=request.seq)
            launched = count_launches()  # a harness's (the benchmark's) are the tripwires' count; a call's, the meter's
            metered = meter is not None and request.op == "call"
            _respond(from_child, replace(reply, launches=reply.launches if metered else launched))
    except BaseException as error:  # noqa: BLE001 - the harness itself failed: say why on the output channel
        if out_of_memory(error):
            code = HARNESS_OUT_OF_MEMORY
        else:
            traceback.print_exc()
    else:
        code = 0
    finally:
        try:
            sys.stdout.flush()
        finally:
            os._exit(code)
