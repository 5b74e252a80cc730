"""The solution process: limits, the run-time guard, the solution module, and its call loop.

Runs in a child forked by the zygote, in a session of its own. It holds the case inputs it is
sent and never the reference or the expected outputs.
"""

from __future__ import annotations

import builtins
import errno
import importlib
import importlib.util
import linecache
import os
import re
import resource
import signal
import sys
import time
import traceback
import types
from typing import Any, Callable, NoReturn

from .wire import decode_trusted, encode_untrusted, read_frame_blocking, sanitize, snapshot, write_frame

SOLUTION_MODULE = "solution"
OUTPUT_LIMIT_BYTES = 4 << 20
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


class ForbiddenError(ImportError):
    """A forbidden module or call reached at run time."""


def prctl(option: int, value: int) -> None:
    """Linux process controls; a no-op elsewhere (macOS has neither option)."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(option, value)


def _vm_size_bytes() -> int | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def apply_limits(memory_limit_mb: int, cpu_seconds: int, limit_address_space: bool) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # Printing megabytes fails with EFBIG (reported as an output limit) instead of killing the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_LIMIT_BYTES, OUTPUT_LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    # Address-space headroom over what the warm process already maps (torch maps a lot). macOS does
    # not enforce RLIMIT_AS; there the time limit and the machine's memory are the bounds. CUDA
    # reserves huge virtual ranges, so with CUDA the parent polls the resident size instead.
    vm_size = _vm_size_bytes()
    if vm_size is not None and limit_address_space:
        limit = vm_size + memory_limit_mb * (1 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _matches(name: str, forbidden: tuple[str, ...]) -> str | None:
    return next((m for m in forbidden if name == m or name.startswith(m + ".")), None)


def _guarded_builtins(modules: tuple[str, ...], calls: tuple[str, ...]) -> dict[str, Any]:
    """The solution module's builtins: imports checked, forbidden builtins replaced by refusals."""
    real_import = builtins.__import__

    def check(name: str) -> None:
        module = _matches(name, modules)
        if module:
            raise ForbiddenError(f"module '{module}' is forbidden in this problem")

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0:
            check(name)
            for item in fromlist or ():
                check(f"{name}.{item}")
        return real_import(name, globals, locals, fromlist, level)

    real_import_module = importlib.import_module

    def guarded_import_module(name, package=None):
        if sys._getframe(1).f_globals.get("__name__") == SOLUTION_MODULE and not name.startswith("."):
            check(name)
        return real_import_module(name, package)

    importlib.import_module = guarded_import_module

    def refusal(call: str) -> Callable[..., NoReturn]:
        def refuse(*args: Any, **kwargs: Any) -> NoReturn:
            raise ForbiddenError(f"call to '{call}' is forbidden in this problem")
        return refuse

    table = dict(builtins.__dict__)
    table["__import__"] = guarded_import
    for call in calls:
        if call in table and call != "__import__":
            table[call] = refusal(call)
    return table


def error_info(error: BaseException, filename: str) -> dict[str, Any]:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == filename]
    message = f"{type(error).__name__}: {error}"
    kind = "exception"
    if isinstance(error, ForbiddenError) or isinstance(error.__cause__ or error.__context__, ForbiddenError):
        kind = "forbidden"
    elif isinstance(error, MemoryError) or isinstance(error, RuntimeError) and (
            "can't allocate memory" in str(error) or "not enough memory" in str(error)):
        kind = "memory"
        tried = re.search(r"tried to allocate (\d+) bytes", str(error))
        message = "memory limit exceeded" + (f": tried to allocate {int(tried.group(1)) / 2**20:,.0f} MiB"
                                             if tried else f" ({message})")
    elif isinstance(error, ModuleNotFoundError) and error.name == "triton":
        message = ("ModuleNotFoundError: Triton is not available here (it exists for Linux on x86-64 only), "
                   "so kernel problems cannot run on this machine")
    elif type(error) is NotImplementedError and not str(error):
        message = "NotImplementedError: the starter's `raise NotImplementedError` is still there; write your solution"
    elif isinstance(error, OSError) and error.errno == errno.EFBIG:
        message = f"output limit exceeded: the solution printed more than {OUTPUT_LIMIT_BYTES >> 20} MiB"
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(error), error)
    return {"type": type(error).__name__, "message": message, "kind": kind,
            "line": frames[-1].lineno if frames else None, "traceback": "".join(lines)[-4000:]}


def load_module(qualified: str, path: str) -> None:
    spec = importlib.util.spec_from_file_location(qualified, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[qualified] = module
    spec.loader.exec_module(module)


def load_solution(spec: dict[str, Any]) -> tuple[Callable[..., Any] | None, dict[str, Any] | None]:
    module = types.ModuleType(SOLUTION_MODULE)
    module.__file__ = spec["filename"]
    module.__builtins__ = _guarded_builtins(tuple(spec["forbidden_modules"]), tuple(spec["forbidden_calls"]))
    sys.modules[SOLUTION_MODULE] = module
    # inspect.getsource (which @triton.jit uses) and tracebacks read lines through linecache: give
    # it the graded source, which may be an unsaved buffer or differ from the file on disk.
    linecache.cache[spec["filename"]] = (len(spec["source"]), None, spec["source"].splitlines(True), spec["filename"])
    try:
        code = compile(spec["source"], spec["filename"], "exec", dont_inherit=True)
        exec(code, module.__dict__)
    except BaseException as error:  # noqa: BLE001 - the solution's own failure is reported, not raised
        return None, error_info(error, spec["filename"])
    entry = module.__dict__.get(spec["entry_point"])
    if not callable(entry):
        return None, {"type": "NameError", "kind": "exception", "line": None, "traceback": "",
                      "message": f"the solution defines no function '{spec['entry_point']}' (the entry point)"}
    return entry, None


def _respond(fd: int, message: dict[str, Any]) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        payload = encode_untrusted(message)
    except Exception as error:  # noqa: BLE001 - e.g. a tensor that cannot be serialized
        payload = encode_untrusted({"status": "error", "error": {
            "type": type(error).__name__, "kind": "exception", "line": None, "traceback": "",
            "message": f"the solution's output could not be serialized: {error}"}})
    write_frame(fd, payload)


def _call(entry: Callable[..., Any], request: dict[str, Any], filename: str) -> dict[str, Any]:
    args, kwargs = request["args"], request["kwargs"]
    if request["op"] == "harness":
        module_name, _, function = request["target"].partition(":")
        target = getattr(importlib.import_module(module_name), function)
        args, kwargs, call = (entry, request["payload"]), {}, target
    else:
        call = entry
    start = time.perf_counter()
    try:
        value = call(*args, **kwargs)
    except BaseException as error:  # noqa: BLE001
        return {"status": "error", "time_ms": (time.perf_counter() - start) * 1e3,
                "error": error_info(error, filename)}
    elapsed = (time.perf_counter() - start) * 1e3
    state = {}
    for key in request.get("snapshot", ()):
        arg = kwargs[key] if isinstance(key, str) else args[key]
        state[key] = snapshot(arg)
    return {"status": "ok", "time_ms": elapsed, "value": sanitize(value), "state": state}


def main(to_child: int, from_child: int, output_fd: int) -> NoReturn:
    """Entry point in the forked child; never returns."""
    try:
        os.setsid()
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        os.dup2(output_fd, 1)
        os.dup2(output_fd, 2)
        os.close(output_fd)
        sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
        sys.stderr = sys.stdout
        spec = decode_trusted(read_frame_blocking(to_child))
        apply_limits(spec["memory_limit_mb"], spec["cpu_seconds"], spec["limit_address_space"])
        for qualified, path in spec["problem_modules"]:
            load_module(qualified, path)
        for name in spec["preload"]:
            importlib.import_module(name)
        entry, load_error = load_solution(spec)
        _respond(from_child, {"status": "ready" if load_error is None else "error", "error": load_error})
        while (frame := read_frame_blocking(to_child)) is not None:
            request = decode_trusted(frame)
            if entry is None:
                _respond(from_child, {"status": "error", "error": load_error})
                continue
            _respond(from_child, _call(entry, request, spec["filename"]))
    except BaseException:  # noqa: BLE001 - the harness itself failed: say why on the output channel
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
        finally:
            os._exit(0)
