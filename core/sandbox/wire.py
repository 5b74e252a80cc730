"""The safe wire format between the grader and a solution process.

Parent -> child: pickle (the child trusts its parent). Child -> parent: `torch.save` bytes read back
with `torch.load(weights_only=True)`, so nothing the solution returns can run code in the parent.
Frames are length-prefixed. torch is imported where it is used, so that a process can hold a pool
(the language server, at start-up) before it has paid for torch.
"""

from __future__ import annotations

import io
import os
import pickle
import struct
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

REFUSED = "__kata_refused__"  # stands where the solution returned something the parent must not load
HEADER = struct.Struct("<Q")
MAX_FRAME = 1 << 34


def write_frame(fd: int, payload: bytes) -> None:
    data = memoryview(HEADER.pack(len(payload)) + payload)
    while data:
        written = os.write(fd, data)
        data = data[written:]


class FrameReader:
    """Incremental frame parsing over a non-blocking descriptor (the parent waits with select)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buffer = bytearray()

    def pop(self) -> bytes | None:
        if len(self.buffer) < HEADER.size:
            return None
        (size,) = HEADER.unpack_from(self.buffer)
        if size > MAX_FRAME:
            raise ValueError(f"frame of {size} bytes refused")
        if len(self.buffer) < HEADER.size + size:
            return None
        frame = bytes(self.buffer[HEADER.size: HEADER.size + size])
        del self.buffer[: HEADER.size + size]
        return frame

    def feed(self) -> bool:
        """Read what is available; False at end of file."""
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            return False
        self.buffer += chunk
        return True


def read_frame_blocking(fd: int) -> bytes | None:
    reader = FrameReader(fd)
    while (frame := reader.pop()) is None:
        if not reader.feed():
            return None
    return frame


def encode_trusted(obj: Any) -> bytes:
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def decode_trusted(data: bytes) -> Any:
    return pickle.loads(data)


def encode_untrusted(obj: Any) -> bytes:
    import torch

    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def decode_untrusted(data: bytes) -> Any:
    import torch

    return torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")


def _plain_tensor(tensor: torch.Tensor) -> torch.Tensor:
    tensor = tensor.detach()
    # torch.save writes a view's whole storage: copy small views of big buffers.
    if tensor.untyped_storage().nbytes() > tensor.numel() * tensor.element_size():
        tensor = tensor.clone()
    return tensor


def sanitize(value: Any, depth: int = 0) -> Any:
    """What the solution returned, as plain data torch.load(weights_only=True) accepts."""
    import torch

    if depth > 32:
        return {REFUSED: "nesting deeper than 32 levels"}
    if isinstance(value, torch.Tensor):
        if type(value) is torch.Tensor or type(value) is torch.nn.Parameter:
            return _plain_tensor(value)
        return {REFUSED: f"a torch.Tensor subclass ({type(value).__name__}) was returned; return a plain tensor"}
    if value is None or type(value) in (bool, int, float, str, bytes):
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):  # e.g. numpy integers, IntEnum
        return int(value)
    if isinstance(value, float):  # e.g. numpy.float64
        return float(value)
    if isinstance(value, str):
        return str(value)
    if type(value).__module__ == "numpy":
        try:
            import numpy
        except ImportError:  # pragma: no cover
            pass
        else:
            if isinstance(value, numpy.generic):
                return sanitize(value.item(), depth + 1)
            if isinstance(value, numpy.ndarray):
                return torch.from_numpy(value.copy())
    if isinstance(value, (tuple, list)):
        items = [sanitize(v, depth + 1) for v in value]
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        if not all(type(k) in (str, int, bool, float) or k is None for k in value):
            return {REFUSED: "a dict with keys other than str/int/float/bool/None"}
        return {k: sanitize(v, depth + 1) for k, v in value.items()}
    return {REFUSED: f"unsupported type {type(value).__module__}.{type(value).__qualname__}; return tensors, "
                     f"numbers, strings, None, or tuples/lists/dicts of them"}


def snapshot(value: Any) -> Any:
    """The gradeable state of an argument: modules and optimizers by their state dicts."""
    import torch

    if isinstance(value, torch.nn.Module):
        return {k: _plain_tensor(v) for k, v in value.state_dict().items()}
    if isinstance(value, torch.optim.Optimizer):
        return sanitize(value.state_dict()["state"])
    return sanitize(value)
