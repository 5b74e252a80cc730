"""Every message that crosses a process boundary of the sandbox, as frozen dataclasses, with their encoding.

Both sides import this module and nothing else of each other's. grader <-> zygote: JSON events over a
Unix SOCK_SEQPACKET pair; grader -> worker: frames of pickle (the worker trusts its grader); worker ->
grader: frames of the wire's tagged plain data (wire.py), validated field by field
(`reply_from_wire`). Each message and its order: docs/SECURITY.md (The sandbox's messages).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal, get_args

from infrakata.core.limits import WorkerLimits
from infrakata.core.sandbox.recording import Recording, TraceLevel, recording_from_wire, recording_to_wire

# "needs_torch": a torch-free worker's code reached torch (core/torch_stand_in.py): the run goes to a worker with it.
ErrorKind = Literal["exception", "forbidden", "memory", "crashed", "timeout", "cancelled", "skipped", "needs_torch"]
ReplyStatus = Literal["started", "ready", "ok", "error"]


# What ps and /proc/PID/comm show of the sandbox's processes.
ZYGOTE_NAME, SPARE_NAME, WORKER_NAME = b"kata-zygote", b"kata-spare", b"kata-worker"
# Asks a worker for the stack of the call it is running (its line at a timeout): it writes it to its output.
STACK_SIGNAL = 12  # SIGUSR2
# A worker's exit codes when its own code (not the solution's) raised: the traceback is its last output.
# Out of memory there means the solution left too little of its limit for its result to be sent.
HARNESS_FAILED, HARNESS_OUT_OF_MEMORY = 70, 71


class ProtocolError(ValueError):
    """A message that does not have the shape of its type: the worker is not to be believed."""


# -- grader -> worker ------------------------------------------------------------------------------

@dataclass(frozen=True)
class SolutionSpec:
    """What a worker runs: a solution (or a trusted reference) and the limits it runs under."""

    source: str
    filename: str
    entry_point: str
    limits: WorkerLimits
    forbidden_modules: tuple[str, ...] = ()
    forbidden_calls: tuple[str, ...] = ()
    preload: tuple[str, ...] = ()  # trusted modules imported before the solution (e.g. timing code)
    # (module name, file name, source) of problem code the worker loads before the solution (code that makes
    # the inputs in the worker): sent, because a worker may not read the problem's folder.
    problem_modules: tuple[tuple[str, str, str], ...] = ()
    # The same, loaded at their first import only (cases.py, for unpickling inputs of its classes): most runs
    # never need one, and its compile took a few milliseconds of each worker's start.
    importable_modules: tuple[tuple[str, str, str], ...] = ()
    trusted: bool = False  # the reference's worker: trusted code, run unconfined
    # Tripwires (core/sandbox/tripwires.py), beside the dotted names of forbidden_calls:
    autograd: bool = True  # False: the autograd engine refuses every backward pass
    count_launches: bool = False  # each reply says how many Triton kernels its call launched
    eager_views: bool = False  # outside its launches, a call's torch work is allocation and views only
    # (name, bytes) of the kernels earlier workers grading the same file compiled (core/sandbox/kernel_cache.py)
    kernel_cache: tuple[tuple[str, bytes], ...] = ()
    # Neither the solution, the problem's code nor the kata's rules need torch: the worker comes from a zygote
    # that never imported it, whose fork and exit cost a millisecond, not the 20 of a process mapping torch.
    torch_free: bool = False
    # With count_launches, through the Triton interpreter: integer buffers a call computes with torch may be read by
    # its kernels (a schedule of tiles: [grading] schedules; core/sandbox/kernel_meter.py)
    schedules: bool = False

    @property
    def cuda(self) -> bool:
        return self.limits.cuda


@dataclass(frozen=True)
class CallRequest:
    """One call: the entry point on these arguments, or (op "harness") a trusted harness function
    `target` ("module:function") given the entry point and `payload`."""

    op: Literal["call", "harness"]
    seq: int = 0  # the reply to this request carries the same number
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    snapshot: tuple[Any, ...] = ()  # arguments (positions or names) whose state after the call comes back
    device: str = "cpu"  # where the arguments go before the call
    target: str = ""
    payload: Any = None
    trace: TraceLevel = "off"  # what to record of a "call" (core/sandbox/trace.py); never of a harness
    watch: tuple[Any, ...] = ()  # arguments whose last write is recorded (graded or frozen ones)
    graded: tuple[Any, ...] = ()  # arguments whose state after the call is graded (the kernels' outputs in place)


# -- worker -> grader ------------------------------------------------------------------------------

@dataclass(frozen=True)
class ErrorInfo:
    type: str
    message: str
    kind: ErrorKind = "exception"
    line: int | None = None
    traceback: str = ""


@dataclass(frozen=True)
class Reply:
    status: ReplyStatus
    value: Any = None  # the call's output (sanitised: plain data); for "started", a Started's fields
    state: dict[Any, Any] = field(default_factory=dict)  # the snapshot arguments after the call
    error: ErrorInfo | None = None
    time_ms: float = 0.0
    seq: int = 0  # the request's; the spec's replies (started, then ready or error) carry 0
    recording: Recording | None = None  # the returning line, the writes, the values of a call
    # Triton kernels the call launched (SolutionSpec.count_launches): the worker's own word, a teaching
    # guard for kernel katas (docs/SECURITY.md), never proof.
    launches: int = 0
    # What the kernels did, measured by the Triton interpreter (core/sandbox/kernel_meter.py), likewise.
    kernels: KernelMeasures | None = None


@dataclass(frozen=True)
class KernelMeasures:
    """A call's kernels as the interpreter ran them (core/sandbox/kernel_meter.py Meter.finish). `buffers`: per
    buffer, (kernel parameter, bytes loaded, bytes stored, an input of the call). `unwritten` / `changed`: where
    (the output "return", "return[i]", or a graded argument's key) and the index of the first element no kernel
    wrote / changed after a kernel wrote it. `moved`: graded arguments that left the storage they came with."""

    tile: int = 0
    loaded: int = 0
    stored: int = 0
    buffers: tuple[tuple[str, int, int, bool], ...] = ()
    unwritten: tuple[Any, tuple[int, ...]] | None = None
    changed: tuple[Any, tuple[int, ...]] | None = None
    moved: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Layer:
    """One layer of a worker's confinement (core/sandbox/confine.py): whether it holds, and how or why not."""

    name: str
    active: bool
    detail: str


@dataclass(frozen=True)
class Started:
    """A worker's first reply, sent before any of the solution's code runs (so it can be believed): the
    layers it is confined by. The grader takes the baseline of its memory limit at that moment."""

    layers: tuple[Layer, ...] = ()


def reply_to_wire(reply: Reply) -> dict[str, Any]:
    """Shallow: asdict would deep-copy the output, every tensor of it, only for it to be encoded (as long again
    as the encoding). The error as a dict, the recording as one JSON string (recording.recording_to_wire)."""
    wire = {f.name: getattr(reply, f.name) for f in fields(Reply)}
    wire["error"] = None if reply.error is None else asdict(reply.error)
    wire["recording"] = recording_to_wire(reply.recording)
    wire["kernels"] = None if reply.kernels is None else asdict(reply.kernels)
    return wire


def _check(condition: bool, what: str) -> None:
    if not condition:
        raise ProtocolError(what)


def reply_from_wire(raw: Any) -> Reply:
    """The worker's message, validated field by field, every string in it made safe to show (what a
    solution returns was admitted as it was read: wire.decode_untrusted)."""
    _check(isinstance(raw, dict) and set(raw) == {f.name for f in fields(Reply)}, "not a reply")
    _check(raw["status"] in get_args(ReplyStatus), f"unknown status {raw['status']!r}")
    _check(isinstance(raw["state"], dict), "state is not a dict")
    _check(type(raw["time_ms"]) in (int, float) and math.isfinite(raw["time_ms"]), "time_ms is not a number")
    _check(type(raw["seq"]) is int, "seq is not an int")
    _check(type(raw["launches"]) is int and 0 <= raw["launches"] < 1 << 31, "launches is not a count")
    error = raw["error"]
    if error is not None:
        _check(isinstance(error, dict) and set(error) == {f.name for f in fields(ErrorInfo)}, "malformed error")
        _check(all(isinstance(error[k], str) for k in ("type", "message", "traceback")), "malformed error text")
        _check(error["kind"] in get_args(ErrorKind), f"unknown error kind {error['kind']!r}")
        _check(error["line"] is None or type(error["line"]) is int and 0 < error["line"] < 1 << 31,
               "malformed error line")
        error = ErrorInfo(clean_text(error["type"], 200), clean_text(error["message"], MESSAGE_CHARS), error["kind"],
                          error["line"], clean_text(error["traceback"], TRACEBACK_CHARS))
    try:  # types, counts, lengths and line numbers, strings cleaned (core/sandbox/recording.py)
        recording = recording_from_wire(raw["recording"], clean_text)
    except ValueError as problem:
        raise ProtocolError(str(problem)) from None
    return Reply(raw["status"], raw["value"], raw["state"], error, float(raw["time_ms"]), raw["seq"], recording,
                 raw["launches"], _kernels_from_wire(raw["kernels"]))


def _count(value: Any) -> bool:
    return type(value) is int and 0 <= value < 1 << 62


def _where(value: Any) -> Any:
    """An output's or argument's key as the worker names it: "return", "return[i]", a position or a name."""
    _check(type(value) is int and 0 <= value < 1 << 16 or isinstance(value, str) and len(value) <= 200,
           "malformed kernel measure key")
    return clean_text(value, 200) if isinstance(value, str) else value


def _kernels_from_wire(raw: Any) -> KernelMeasures | None:
    if raw is None:
        return None
    _check(isinstance(raw, dict) and set(raw) == {f.name for f in fields(KernelMeasures)}, "malformed kernel measures")
    _check(all(_count(raw[k]) for k in ("tile", "loaded", "stored")), "malformed kernel counts")
    buffers = raw["buffers"]
    _check(isinstance(buffers, (list, tuple)) and len(buffers) <= 256 and all(
        isinstance(b, (list, tuple)) and len(b) == 4 and isinstance(b[0], str) and _count(b[1]) and _count(b[2])
        and type(b[3]) is bool for b in buffers), "malformed kernel buffers")
    places = []
    for name in ("unwritten", "changed"):
        place = raw[name]
        if place is not None:
            _check(isinstance(place, (list, tuple)) and len(place) == 2 and isinstance(place[1], (list, tuple))
                   and len(place[1]) <= 8 and all(_count(i) for i in place[1]), f"malformed {name}")
            place = (_where(place[0]), tuple(place[1]))
        places.append(place)
    moved = raw["moved"]
    _check(isinstance(moved, (list, tuple)) and len(moved) <= 64, "malformed moved arguments")
    return KernelMeasures(raw["tile"], raw["loaded"], raw["stored"],
                          tuple((clean_text(b[0], 100), b[1], b[2], b[3]) for b in buffers), places[0], places[1],
                          tuple(_where(key) for key in moved))


def started_from_wire(value: Any) -> Started:
    """The value of a "started" reply (sent before the solution ran, but checked all the same)."""
    _check(isinstance(value, dict) and set(value) == {"layers"}, "malformed start")
    layers = value["layers"]
    _check(isinstance(layers, (list, tuple)) and len(layers) <= 16 and all(
        isinstance(layer, dict) and set(layer) == {"name", "active", "detail"} and isinstance(layer["name"], str)
        and type(layer["active"]) is bool and isinstance(layer["detail"], str) for layer in layers),
        "malformed layers")
    return Started(tuple(Layer(clean_text(layer["name"], 40), layer["active"],
                                                        clean_text(layer["detail"], 400)) for layer in layers))


# Control characters (but newline and tab), C1 controls and the bidirectional overrides that make text
# read other than it is: escaped wherever a worker's text is shown (terminal, JSON, JUnit, the editor).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
MESSAGE_CHARS, TRACEBACK_CHARS = 8_000, 16_000


def clean_text(text: str, limit: int | None = None) -> str:
    """Text from a worker, safe to show: lone surrogates replaced, control characters escaped, capped."""
    if limit is not None and len(text) > limit:
        text = text[:limit] + f"... [{len(text) - limit} more characters]"
    if text.isascii() and text.isprintable():  # most of it: nothing to replace or escape
        return text
    text = text.encode("utf-8", "replace").decode("utf-8")
    return _UNSAFE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                       text)


# -- grader <-> zygote ------------------------------------------------------------------------------

NO_IDLE_IMPORTS = "--no-idle-imports"  # the zygote's argument for a one-shot command's pool (WorkerPool.idle_imports)
TORCH_FREE = "--torch-free"  # the zygote's argument for the pool of torch-free workers (SolutionSpec.torch_free)


@dataclass(frozen=True)
class ForkRequest:
    """Sent with the run's descriptors: the worker's input and output pipes, its printed-output file and,
    when the run has unchangeable tensor inputs, their arena (core/sandbox/arena.py)."""

    cuda: bool  # a worker with CUDA initialised (where the machine has CUDA)
    trusted: bool = False  # for trusted code (a reference): not confined, never a spare


@dataclass(frozen=True)
class Gpu:
    """A visible CUDA device as the driver described it to the zygote's probe (core/sandbox/gpu.py)."""

    index: int  # its CUDA ordinal here (after CUDA_VISIBLE_DEVICES)
    name: str
    bus_id: str  # its PCI bus id, which nvidia-smi -i takes whatever CUDA_VISIBLE_DEVICES says
    mode: int  # its compute mode: 0 default, 2 prohibited, 3 exclusive process (gpu.COMPUTE_MODES)


@dataclass(frozen=True)
class Ready:
    cuda: bool
    triton: bool
    interpret: bool  # Triton runs through its CPU interpreter
    isolation: tuple[Layer, ...] = ()  # the layers a probe worker was confined by, as every worker will be
    gpus: tuple[Gpu, ...] = ()  # the visible CUDA devices and their compute modes
    interpret_cleared: bool = False  # an inherited TRITON_INTERPRET was cleared: this machine has CUDA
    cuda_isolation: tuple[Layer, ...] = ()  # a CUDA worker's layers, as the CUDA probe found them
    cuda_refusal: str = ""  # why CUDA grading is refused here: the CUDA probe failed ("": it held, or no CUDA)


@dataclass(frozen=True)
class Forked:
    pid: int


@dataclass(frozen=True)
class SpareStarted:
    pid: int
    cuda: bool


@dataclass(frozen=True)
class Exited:
    pid: int
    code: int | None


Event = ForkRequest | Ready | Forked | SpareStarted | Exited
_EVENTS = {cls.__name__: cls for cls in (ForkRequest, Ready, Forked, SpareStarted, Exited)}


def encode_event(event: Event) -> bytes:
    return json.dumps({"event": type(event).__name__, **asdict(event)}).encode()


def decode_event(data: bytes) -> Event:
    try:
        raw = json.loads(data)
        cls = _EVENTS[raw.pop("event")]
        if cls is Ready:
            raw["isolation"] = tuple(Layer(**layer) for layer in raw.get("isolation", ()))
            raw["cuda_isolation"] = tuple(Layer(**layer) for layer in raw.get("cuda_isolation", ()))
            raw["gpus"] = tuple(Gpu(**gpu) for gpu in raw.get("gpus", ()))
        return cls(**raw)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ProtocolError(f"malformed zygote message: {error}") from None
