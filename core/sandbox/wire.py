"""The safe wire format between the grader and a solution process.

Parent -> child: pickle (the child trusts its parent). Child -> parent: `torch.save` bytes read back
with `torch.load(weights_only=True)`, so nothing the solution returns can run code in the parent.
Frames are length-prefixed. torch is imported where it is used, so that a process can hold a pool
(the language server, at start-up) before it has paid for torch.
"""

from __future__ import annotations

import ctypes
import io
import os
import pickle
import struct
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

REFUSED = "__kata_refused__"  # stands where the solution returned something the parent must not load
HEADER = struct.Struct("<Q")
MAX_FRAME = 1 << 34  # what a trusted side reads; a worker's frames are held to its run's reply limit


class FrameError(ValueError):
    """A frame the reader refuses (announced larger than its limit): the sender is not to be believed."""


def write_frame(fd: int, payload: bytes) -> None:
    data = memoryview(HEADER.pack(len(payload)) + payload)
    while data:
        written = os.write(fd, data)
        data = data[written:]


class FrameReader:
    """Incremental frame parsing over a non-blocking descriptor (the parent waits with select). A frame
    announced above `limit` bytes raises FrameError before anything of it is buffered, so a sender can
    make the reader hold no more than one frame's limit."""

    def __init__(self, fd: int, limit: int = MAX_FRAME):
        self.fd, self.limit = fd, limit
        self.buffer = bytearray()

    def pop(self) -> bytes | None:
        if len(self.buffer) < HEADER.size:
            return None
        (size,) = HEADER.unpack_from(self.buffer)
        if size > self.limit:
            raise FrameError(f"a reply of {size:,} bytes, more than the {self.limit:,} this run allows")
        if len(self.buffer) < HEADER.size + size:
            return None
        frame = bytes(self.buffer[HEADER.size: HEADER.size + size])
        del self.buffer[: HEADER.size + size]
        return frame

    def feed(self) -> bool:
        """Read what is available (never more than the frame being read may still need); False at end of file."""
        wanted = 1 << 20
        if len(self.buffer) >= HEADER.size:
            (size,) = HEADER.unpack_from(self.buffer)
            if size > self.limit:
                raise FrameError(f"a reply of {size:,} bytes, more than the {self.limit:,} this run allows")
        chunk = os.read(self.fd, wanted)
        if not chunk:
            return False
        self.buffer += chunk
        return True


def read_frame_blocking(fd: int) -> bytearray | None:
    """The next frame from a blocking descriptor (None at end of file), read into one buffer of the
    frame's size. A worker reads its requests under its memory limit: what reading costs it must not
    depend on how the frame arrives (in one piece on a quiet machine, in many under load)."""
    header = _read_exactly(fd, HEADER.size)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    if size > MAX_FRAME:
        raise FrameError(f"a frame of {size:,} bytes, more than the {MAX_FRAME:,} a reader allows")
    frame = _read_exactly(fd, size)
    if frame is None:
        raise EOFError(f"the sender closed the pipe {size:,} bytes into a frame")
    return frame


def _read_exactly(fd: int, size: int) -> bytearray | None:
    """`size` bytes, or None at end of file before all of them."""
    buffer = bytearray(size)
    view, got = memoryview(buffer), 0
    while got < size:
        read = os.readv(fd, [view[got:]])
        if read == 0:
            return None
        got += read
    return buffer


class _TrustedPickler(pickle.Pickler):
    """pickle, with each CPU tensor storage written once as its raw bytes. torch's own reduction of a
    storage is a legacy-format torch.save per storage, which cannot load the unsigned 16-, 32- and
    64-bit dtypes and costs a few hundred microseconds a tensor. Once per storage, so views stay views."""

    def __init__(self, file: io.BytesIO):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._torch = sys.modules.get("torch")  # not imported: there is no tensor to write
        self._storages: dict[int, int] = {}

    def persistent_id(self, obj: Any) -> Any:
        torch = self._torch
        if torch is None or not isinstance(obj, (torch.UntypedStorage, torch.storage.TypedStorage)):
            return None
        typed = isinstance(obj, torch.storage.TypedStorage)
        untyped = obj._untyped_storage if typed else obj
        if untyped.device.type != "cpu":
            return None
        # An untyped storage (unsigned dtypes' tensors reduce to one) is read back as torch.load does: bytes.
        dtype = obj.dtype if typed else torch.uint8
        index = self._storages.get(untyped._cdata)
        if index is not None:
            return ("storage", index, dtype, None)
        index = self._storages[untyped._cdata] = len(self._storages)
        return ("storage", index, dtype, ctypes.string_at(untyped.data_ptr(), untyped.nbytes()))


class _TrustedUnpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO):
        super().__init__(file)
        self._storages: dict[int, Any] = {}

    def persistent_load(self, pid: Any) -> Any:
        import torch

        _, index, dtype, data = pid
        if data is not None:
            self._storages[index] = torch.UntypedStorage.from_buffer(data, dtype=torch.uint8) if data \
                else torch.UntypedStorage(0)
        return torch.storage.TypedStorage(wrap_storage=self._storages[index], dtype=dtype, _internal=True)


def encode_trusted(obj: Any) -> bytes:
    buffer = io.BytesIO()
    _TrustedPickler(buffer).dump(obj)
    return buffer.getvalue()


def decode_trusted(data: bytes | bytearray) -> Any:
    return _TrustedUnpickler(io.BytesIO(data)).load()


def encode_untrusted(obj: Any) -> bytes:
    import torch

    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def decode_untrusted(data: bytes) -> Any:
    import torch

    return torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")


class UnsafeValue(ValueError):
    """A value from a worker that the grader will not compare or show: the message says what it was."""


ADMITTED_DTYPES = frozenset(
    f"torch.{name}" for name in ("float64", "float32", "float16", "bfloat16", "complex64", "complex128", "int64",
                                 "int32", "int16", "int8", "uint8", "bool", "float8_e4m3fn", "float8_e5m2",
                                 "uint16", "uint32", "uint64"))
MAX_VALUES = 1_000_000  # containers' items in one reply: beyond, it is not an answer but a flood
MAX_DEPTH = 32


def admit(value: Any) -> Any:
    """A value decoded from a worker, checked before the grader compares or shows it: plain data only;
    tensors dense, strided, on the CPU, of a known dtype and within their storage; strings safe to
    show (protocol.clean_text). Raises UnsafeValue."""
    from infrakata.core.sandbox.protocol import clean_text

    count = 0

    def walk(item: Any, depth: int) -> Any:
        nonlocal count
        count += 1
        if depth > MAX_DEPTH:
            raise UnsafeValue(f"nesting deeper than {MAX_DEPTH} levels")
        if count > MAX_VALUES:
            raise UnsafeValue(f"more than {MAX_VALUES:,} values")
        if item is None or type(item) in (bool, int, float, bytes):
            return item
        if type(item) is str:
            return clean_text(item)
        if type(item) in (tuple, list):
            items = [walk(v, depth + 1) for v in item]
            return tuple(items) if type(item) is tuple else items
        if type(item) is dict:
            if not all(k is None or type(k) in (str, int, float, bool) for k in item):
                raise UnsafeValue("a dict with keys other than str/int/float/bool/None")
            return {(clean_text(k) if type(k) is str else k): walk(v, depth + 1) for k, v in item.items()}
        if _is_tensor(item):
            return _admit_tensor(item)
        raise UnsafeValue(f"a value of type {type(item).__module__}.{type(item).__qualname__}")

    return walk(value, 0)


def _is_tensor(item: Any) -> bool:
    import torch

    return isinstance(item, torch.Tensor)


def _admit_tensor(tensor: Any) -> Any:
    import torch

    if type(tensor) not in (torch.Tensor, torch.nn.Parameter):
        raise UnsafeValue(f"a tensor of type {type(tensor).__qualname__}")
    if tensor.layout != torch.strided or tensor.device.type != "cpu" or tensor.is_quantized or tensor.is_nested:
        raise UnsafeValue(f"a tensor that is not a dense CPU tensor (layout {tensor.layout}, device {tensor.device})")
    if str(tensor.dtype) not in ADMITTED_DTYPES:
        raise UnsafeValue(f"a tensor of dtype {tensor.dtype}")
    if tensor.numel():
        sizes, strides = tensor.shape, tensor.stride()
        if any(s < 0 for s in strides) or tensor.storage_offset() < 0:
            raise UnsafeValue("a tensor with negative strides or offset")
        last = tensor.storage_offset() + sum((n - 1) * s for n, s in zip(sizes, strides, strict=True))
        if (last + 1) * tensor.element_size() > tensor.untyped_storage().nbytes():
            raise UnsafeValue("a tensor that reaches beyond its storage")
    return tensor.detach() if type(tensor) is torch.Tensor else tensor.detach().as_subclass(torch.Tensor)


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
        if value.layout != torch.strided or value.is_quantized or value.is_nested:
            return {REFUSED: f"a {value.layout} tensor was returned; return a dense tensor"}
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
