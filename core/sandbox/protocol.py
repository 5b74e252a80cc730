"""Every message that crosses a process boundary of the sandbox, as frozen dataclasses, with their
encoding in one place. Both sides import this module and nothing else of each other's.

grader <-> zygote, over a Unix datagram socket, JSON (`encode_event` / `decode_event`):
    ForkRequest (with three descriptors: the worker's input pipe, its output pipe, its printed-output
    file); Ready once; Forked per fork; SpareStarted per worker started ahead of need; Exited per
    exit of a handed-out worker.
grader -> worker, frames of pickle (the worker trusts its grader): a SolutionSpec, then one
    CallRequest per call.
worker -> grader, frames of torch.save read back with torch.load(weights_only=True), so plain data
    only: one Reply per message (`reply_to_wire` in the worker, `reply_from_wire` in the grader,
    which validates every field: after the solution's code has run, the worker is untrusted).
    Started (before any solution code), then ready or error (the solution loaded or not), then one
    ok or error per call.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal, get_args

from ..limits import WorkerLimits
from .trace import Recording, TraceLevel, recording_from_wire, recording_to_wire  # issue 17

ErrorKind = Literal["exception", "forbidden", "memory", "crashed", "timeout", "cancelled", "skipped"]
ReplyStatus = Literal["started", "ready", "ok", "error"]


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
    problem_modules: tuple[tuple[str, str], ...] = ()  # (module name, path): lets the child unpickle inputs

    @property
    def cuda(self) -> bool:
        return self.limits.cuda


@dataclass(frozen=True)
class CallRequest:
    """One call: the entry point on these arguments, or (op "harness") a trusted harness function
    `target` ("module:function") given the entry point and `payload`."""

    op: Literal["call", "harness"]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    snapshot: tuple[Any, ...] = ()  # arguments (positions or names) whose state after the call comes back
    device: str = "cpu"  # where the arguments go before the call
    target: str = ""
    payload: Any = None
    trace: TraceLevel = "off"  # issue 17: what to record of a "call" (core/sandbox/trace.py); never of a harness


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
    value: Any = None  # the call's output (sanitised: plain data); for "started", the resident bytes
    state: dict[Any, Any] = field(default_factory=dict)  # the snapshot arguments after the call
    error: ErrorInfo | None = None
    time_ms: float = 0.0
    recording: Recording | None = None  # issue 17: the returning line, the writes, the values of a call


def reply_to_wire(reply: Reply) -> dict[str, Any]:
    # issue 17: the recording as one JSON string (trace.recording_to_wire)
    return {**asdict(replace(reply, recording=None)), "recording": recording_to_wire(reply.recording)}


def _check(condition: bool, what: str) -> None:
    if not condition:
        raise ProtocolError(what)


def reply_from_wire(raw: Any) -> Reply:
    """The worker's message, validated field by field."""
    _check(isinstance(raw, dict) and set(raw) == {f.name for f in fields(Reply)}, "not a reply")
    _check(raw["status"] in get_args(ReplyStatus), f"unknown status {raw['status']!r}")
    _check(isinstance(raw["state"], dict), "state is not a dict")
    _check(type(raw["time_ms"]) in (int, float), "time_ms is not a number")
    error = raw["error"]
    if error is not None:
        _check(isinstance(error, dict) and set(error) == {f.name for f in fields(ErrorInfo)}, "malformed error")
        _check(all(isinstance(error[k], str) for k in ("type", "message", "traceback")), "malformed error text")
        _check(error["kind"] in get_args(ErrorKind), f"unknown error kind {error['kind']!r}")
        _check(error["line"] is None or type(error["line"]) is int, "malformed error line")
        error = ErrorInfo(**error)
    try:  # issue 17: types, counts, lengths and line numbers, strings cleaned (core/sandbox/trace.py)
        recording = recording_from_wire(raw["recording"])
    except ValueError as problem:
        raise ProtocolError(str(problem)) from None
    return Reply(raw["status"], raw["value"], raw["state"], error, float(raw["time_ms"]), recording)


# -- grader <-> zygote ------------------------------------------------------------------------------

@dataclass(frozen=True)
class ForkRequest:
    cuda: bool  # a worker with CUDA initialised (where the machine has CUDA)


@dataclass(frozen=True)
class Ready:
    cuda: bool
    triton: bool
    interpret: bool  # Triton runs through its CPU interpreter


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
        return cls(**raw)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ProtocolError(f"malformed zygote message: {error}") from None
