"""The safe wire format between the grader and a solution process.

Parent -> child: pickle (the child trusts its parent). Child -> parent: a tagged format of plain data
(None, bools, ints, floats, strings, bytes, lists, tuples, dicts and dense tensors as their raw bytes)
that the parent reads with a bounded parser: nothing in it names a type, a function or a module, so
nothing the solution returns can run code in the parent (docs/SECURITY.md). Frames are length-prefixed.
torch is imported where it is used, so that a process can hold a pool (the language server, at
start-up) before it has paid for torch.
"""

from __future__ import annotations

import array
import ctypes
import io
import os
import pickle
import struct
from typing import TYPE_CHECKING, Any

from infrakata.core.sandbox.protocol import clean_text
from infrakata.core.torch_stand_in import loaded_torch

if TYPE_CHECKING:
    import torch

REFUSED = "__kata_refused__"  # stands where the solution returned something the parent must not load
FRAME_LENGTH = struct.Struct("<Q")
MAX_FRAME = 1 << 34  # what a trusted side reads; a worker's frames are held to its run's reply limit
PIPE_BYTES = 1 << 16  # what a pipe holds (Linux's default): a read of a reply asks for at least this much


class FrameError(ValueError):
    """A frame the reader refuses (announced larger than its limit): the sender is not to be believed."""


def write_frame(fd: int, payload: bytes) -> None:
    data = memoryview(FRAME_LENGTH.pack(len(payload)) + payload)
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

    def pop(self) -> bytearray | None:
        if len(self.buffer) < FRAME_LENGTH.size:
            return None
        (size,) = FRAME_LENGTH.unpack_from(self.buffer)
        if size > self.limit:
            raise FrameError(f"a reply of {size:,} bytes, more than the {self.limit:,} this run allows")
        if len(self.buffer) < FRAME_LENGTH.size + size:
            return None
        frame = self.buffer[FRAME_LENGTH.size: FRAME_LENGTH.size + size]
        del self.buffer[: FRAME_LENGTH.size + size]
        return frame

    def feed(self) -> bool:
        """Read what is available, at most what the frame being read still needs (a pipe's worth at least, 1 MiB
        at most): os.read allocates what it is asked for, and most replies are a few hundred bytes. False at
        end of file."""
        wanted = PIPE_BYTES
        if len(self.buffer) >= FRAME_LENGTH.size:
            (size,) = FRAME_LENGTH.unpack_from(self.buffer)
            if size > self.limit:
                raise FrameError(f"a reply of {size:,} bytes, more than the {self.limit:,} this run allows")
            wanted = min(max(FRAME_LENGTH.size + size - len(self.buffer), PIPE_BYTES), 1 << 20)
        chunk = os.read(self.fd, wanted)
        if not chunk:
            return False
        self.buffer += chunk
        return True


def read_frame_blocking(fd: int) -> bytearray | None:
    """The next frame from a blocking descriptor (None at end of file), read into one buffer of the
    frame's size. A worker reads its requests under its memory limit: what reading costs it must not
    depend on how the frame arrives (in one piece on a quiet machine, in many under load)."""
    header = _read_exactly(fd, FRAME_LENGTH.size)
    if header is None:
        return None
    (size,) = FRAME_LENGTH.unpack(header)
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
    """pickle, with each CPU tensor storage written once as its raw bytes, and a plain CPU tensor as its
    storage and geometry. torch's own reduction of a storage is a legacy-format torch.save per storage, which
    cannot load the unsigned 16-, 32- and 64-bit dtypes and costs a few hundred microseconds a tensor; its
    reduction of a tensor costs tens of microseconds more. Once per storage, so views stay views. Only
    objects other than plain Python data reach `reducer_override`: the rest pickles at C speed."""

    def __init__(self, file: io.BytesIO):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._torch = loaded_torch()  # not imported: there is no tensor to write
        self._storages: dict[int, int] = {}

    def reducer_override(self, obj: Any) -> Any:
        torch = self._torch
        if torch is None:
            return NotImplemented
        if type(obj) is torch.Tensor and obj.device.type == "cpu" and obj.layout == torch.strided \
                and not (obj.requires_grad or obj.is_quantized or obj.is_conj() or obj.is_neg()) \
                and obj.grad is None and not obj.__dict__:
            return _tensor, (obj._typed_storage(), obj.storage_offset(), tuple(obj.shape), obj.stride())
        if not isinstance(obj, (torch.UntypedStorage, torch.storage.TypedStorage)):
            return NotImplemented
        typed = isinstance(obj, torch.storage.TypedStorage)
        untyped = obj._untyped_storage if typed else obj
        if untyped.device.type != "cpu":
            return NotImplemented
        # An untyped storage (unsigned dtypes' tensors reduce to one) is read back as torch.load does: bytes.
        dtype = obj.dtype if typed else torch.uint8
        index = self._storages.get(untyped._cdata)
        if index is not None:
            return _storage, (index, dtype, None)
        index = self._storages[untyped._cdata] = len(self._storages)
        return _storage, (index, dtype, ctypes.string_at(untyped.data_ptr(), untyped.nbytes()))


def _storage(index: int, dtype: Any, data: bytes | None) -> Any:
    """Stands in the pickle for the storage a _TrustedUnpickler makes (its `find_class` answers its own)."""
    raise pickle.UnpicklingError("a storage is read by a _TrustedUnpickler only")


def _tensor(storage: Any, offset: int, shape: tuple[int, ...], stride: tuple[int, ...]) -> Any:
    import torch

    return torch.empty((0,), dtype=storage.dtype).set_(storage._untyped_storage, offset, shape, stride)


class _TrustedUnpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO):
        super().__init__(file)
        self._storages: dict[int, Any] = {}

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name == _storage.__name__:
            return self._storage
        return super().find_class(module, name)

    def _storage(self, index: int, dtype: Any, data: bytes | None) -> Any:
        import torch

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


# The dtypes a worker may send, each by its index here on the wire (append only: a code's meaning is fixed).
WIRE_DTYPES = ("float64", "float32", "float16", "bfloat16", "complex64", "complex128", "int64", "int32", "int16",
               "int8", "uint8", "bool", "float8_e4m3fn", "float8_e5m2", "uint16", "uint32", "uint64")
_LENGTH = struct.Struct("<Q")
_INT = struct.Struct("<q")
_FLOAT = struct.Struct("<d")
MAX_DIMS = 64  # torch's own limit on a tensor's dimensions
_PLAIN = frozenset({type(None), bool, int, float, str, bytes})  # what sanitize passes as it is
(_TAG_NONE, _TAG_TRUE, _TAG_FALSE, _TAG_INT, _TAG_BIG_INT, _TAG_FLOAT, _TAG_STR, _TAG_BYTES, _TAG_LIST, _TAG_TUPLE,
 _TAG_DICT, _TAG_TENSOR, _TAG_ARRAY) = b"NTFiIfsbltdxa"
_KEY_TYPES = frozenset({str, int, float, bool})
_CONTAINER_TAGS = frozenset({_TAG_LIST, _TAG_TUPLE, _TAG_DICT})


def encode_untrusted(obj: Any) -> bytes:
    """A worker's message (plain data, as `sanitize` leaves a solution's output) in the tagged format.
    Raises TypeError for anything else."""
    parts: list[bytes] = []
    _encode(obj, parts, loaded_torch())
    return b"".join(parts)


def _encode(value: Any, parts: list[bytes], torch: Any) -> None:
    kind = type(value)
    if value is None:
        parts.append(b"N")
    elif kind is bool:
        parts.append(b"T" if value else b"F")
    elif kind is int:
        if -(1 << 63) <= value < 1 << 63:
            parts += (b"i", _INT.pack(value))
        else:
            size = value.bit_length() // 8 + 1
            parts += (b"I", _LENGTH.pack(size), value.to_bytes(size, "little", signed=True))
    elif kind is float:
        parts += (b"f", _FLOAT.pack(value))
    elif kind is str or kind is bytes:
        data = value.encode("utf-8", "surrogatepass") if kind is str else value
        parts += (b"s" if kind is str else b"b", _LENGTH.pack(len(data)), data)
    elif kind is list or kind is tuple:
        container = b"l" if kind is list else b"t"
        packed = _packed(value)
        if packed is not None:  # a list of numbers, the common reply, in one piece
            parts += (b"a", container, packed[0], _LENGTH.pack(len(value)), packed[1])
            return
        parts += (container, _LENGTH.pack(len(value)))
        for item in value:
            _encode(item, parts, torch)
    elif kind is dict:
        parts += (b"d", _LENGTH.pack(len(value)))
        for key, item in value.items():
            _encode(key, parts, torch)
            _encode(item, parts, torch)
    elif torch is not None and isinstance(value, torch.Tensor):
        tensor = value.detach()
        name = str(tensor.dtype).removeprefix("torch.")
        if name not in WIRE_DTYPES or tensor.layout != torch.strided or tensor.is_quantized \
                or tensor.device.type not in ("cpu", "cuda"):
            _encode({REFUSED: f"a tensor that is not a dense CPU tensor of a dtype the grader reads (dtype "
                              f"{tensor.dtype}, layout {tensor.layout}, device {tensor.device})"}, parts, torch)
            return
        tensor = tensor.cpu().contiguous()  # a CUDA worker's outputs cross as a CPU worker's do
        nbytes = tensor.numel() * tensor.element_size()
        parts += (b"x", bytes((WIRE_DTYPES.index(name), tensor.dim())),
                  struct.pack(f"<{tensor.dim()}q", *tensor.shape), _LENGTH.pack(nbytes),
                  ctypes.string_at(tensor.data_ptr(), nbytes) if nbytes else b"")
    else:
        raise TypeError(f"{kind.__module__}.{kind.__qualname__} is not plain data")


def _packed(items: list[Any] | tuple[Any, ...]) -> tuple[bytes, bytes] | None:
    """(the element code, the packed elements) of a sequence of floats only, of bools only, or of ints only
    that fit in 64 bits; None for any other."""
    if len(items) < 2:
        return None
    kinds = set(map(type, items))
    if kinds == {float}:
        return b"f", array.array("d", items).tobytes()
    if kinds == {bool}:
        return b"?", bytes(items)
    if kinds == {int} and -(1 << 63) <= min(items) and max(items) < 1 << 63:
        return b"i", array.array("q", items).tobytes()
    return None


def decode_untrusted(data: bytes | bytearray) -> Any:
    """A worker's message, read by a parser that makes only plain data and checks every length against
    what is left: ValueError for anything that is not exactly one well-formed value. What it makes is
    admitted as it is read, so that nothing walks it again: strings safe to show (protocol.clean_text),
    no more than MAX_ITEMS items nor MAX_DEPTH levels in a value (UnsafeValue, a ValueError), tensors
    dense, on the CPU and of their own storage by construction."""
    reader = _Reader(data)
    value = reader.value(0)
    if reader.at != len(reader.data):
        raise ValueError(f"{len(reader.data) - reader.at} bytes after the message")
    return value


class UnsafeValue(ValueError):
    """A well-formed value from a worker that the grader will not compare or show: the message says what it
    was."""


MAX_ITEMS = 1_000_000  # containers' items in one reply: beyond, it is not an answer but a flood
MAX_DEPTH = 32
# The levels of a reply's envelope over its values: the reply's fields, then the state's keys.
_ENVELOPE_DEPTH = 2


class _Reader:
    def __init__(self, data: bytes | bytearray):
        # torch reads a tensor's bytes from a writable buffer only (a worker's frames are bytearrays)
        self.data = data if isinstance(data, bytearray) else bytearray(data)
        self.at = 0
        self.items = 0

    def take(self, size: int) -> memoryview:
        if size > len(self.data) - self.at:
            raise ValueError(f"a length of {size:,} bytes past the message's end")
        start, self.at = self.at, self.at + size
        return memoryview(self.data)[start:self.at]

    def length(self) -> int:
        at, left = self.at, len(self.data) - self.at - _LENGTH.size
        if left < 0:
            raise ValueError(f"a length of {_LENGTH.size} bytes past the message's end")
        (size,) = _LENGTH.unpack_from(self.data, at)
        if size > left:  # every item takes at least a byte: a count past the end is a lie
            raise ValueError(f"a length of {size:,} past the message's end")
        self.at = at + _LENGTH.size
        return int(size)

    def count(self) -> int:
        """A container's length, counted against MAX_ITEMS."""
        size = self.length()
        self.items += size
        if self.items > MAX_ITEMS:
            raise UnsafeValue(f"more than {MAX_ITEMS:,} values")
        return size

    def value(self, depth: int) -> Any:
        # The tags of a reply's bulk (numbers, strings, containers) are read in place, without take() or a
        # call more: a reply of thousands of small values is decoded in every call of a case.
        data, at = self.data, self.at
        if at >= len(data):
            raise ValueError("a length of 1 bytes past the message's end")
        tag, at = data[at], at + 1
        if tag == _TAG_INT or tag == _TAG_FLOAT:
            self.at = at + 8
            if self.at > len(data):
                raise ValueError("a length of 8 bytes past the message's end")
            return (_INT if tag == _TAG_INT else _FLOAT).unpack_from(data, at)[0]
        self.at = at
        if tag == _TAG_STR:
            size = self.length()
            start = self.at
            self.at = start + size
            return clean_text(data[start:self.at].decode("utf-8", "surrogatepass"))
        if tag in _CONTAINER_TAGS:
            if depth >= MAX_DEPTH + _ENVELOPE_DEPTH:
                raise UnsafeValue(f"nesting deeper than {MAX_DEPTH} levels")
            value, inner = self.value, depth + 1
            if tag == _TAG_DICT:
                found = {}
                for _ in range(self.count()):
                    key = value(inner)
                    if not (key is None or type(key) in _KEY_TYPES):
                        raise ValueError("a dict key that is not str/int/float/bool/None")
                    found[key] = value(inner)
                return found
            items = [value(inner) for _ in range(self.count())]
            return items if tag == _TAG_LIST else tuple(items)
        if tag == _TAG_NONE:
            return None
        if tag == _TAG_TRUE or tag == _TAG_FALSE:
            return tag == _TAG_TRUE
        if tag == _TAG_BIG_INT:
            return int.from_bytes(self.take(self.length()), "little", signed=True)
        if tag == _TAG_BYTES:
            return self.take(self.length()).tobytes()
        if tag == _TAG_TENSOR:
            return self.tensor()
        if tag == _TAG_ARRAY:
            return self.array()
        raise ValueError(f"an unknown tag {bytes((tag,))!r} at byte {at - 1}")

    def array(self) -> list[Any] | tuple[Any, ...]:
        """A packed sequence of numbers (`_packed`)."""
        container, element = self.take(2).tobytes()
        if element not in b"fi?" or container not in b"lt":
            raise ValueError(f"an array of {bytes((container, element))!r}")
        count = self.count()
        if element == ord("?"):
            items: list[Any] = [byte != 0 for byte in self.take(count)]
        else:
            packed = array.array("d" if element == ord("f") else "q")
            packed.frombytes(self.take(count * packed.itemsize))
            items = packed.tolist()
        return items if container == ord("l") else tuple(items)

    def tensor(self) -> Any:
        """A plain, dense CPU tensor of a wire dtype, in a storage of its own of exactly its bytes."""
        import torch

        code, dims = self.take(2)
        if code >= len(WIRE_DTYPES) or dims > MAX_DIMS:
            raise ValueError(f"a tensor of dtype code {code} with {dims} dimensions")
        shape = struct.unpack(f"<{dims}q", self.take(8 * dims))
        if any(size < 0 for size in shape):
            raise ValueError(f"a tensor of shape {shape}")
        dtype = getattr(torch, WIRE_DTYPES[code])
        nbytes = self.length()
        numel = 1
        for size in shape:
            numel *= size
        if numel * dtype.itemsize != nbytes:
            raise ValueError(f"a tensor of shape {shape} {dtype} in {nbytes:,} bytes")
        start = self.at
        self.take(nbytes)
        if not nbytes:
            return torch.empty(shape, dtype=dtype)
        # A copy of its own: aligned, and holding no more of the frame than its bytes.
        raw = torch.frombuffer(self.data, dtype=torch.uint8, count=nbytes, offset=start).clone()
        return raw.view(dtype).reshape(shape)


def _plain_tensor(tensor: torch.Tensor) -> torch.Tensor:
    tensor = tensor.detach()
    # torch.save writes a view's whole storage: copy small views of big buffers.
    if tensor.untyped_storage().nbytes() > tensor.numel() * tensor.element_size():
        tensor = tensor.clone()
    return tensor


def sanitize(value: Any) -> Any:
    """What the solution returned, as plain data the wire format carries."""
    return _sanitize(value, 0, loaded_torch())  # torch not imported (a torch-free worker): no value is a tensor


def _sanitize(value: Any, depth: int, torch: Any) -> Any:
    if depth > 32:
        return {REFUSED: "nesting deeper than 32 levels"}
    kind = type(value)
    if kind in _PLAIN:
        return value
    if isinstance(value, (tuple, list)):
        items = [_sanitize(v, depth + 1, torch) for v in value]
        return tuple(items) if isinstance(value, tuple) else items
    if torch is not None and isinstance(value, torch.Tensor):
        if value.layout != torch.strided or value.is_quantized or value.is_nested:
            return {REFUSED: f"a {value.layout} tensor was returned; return a dense tensor"}
        if kind is torch.Tensor or kind is torch.nn.Parameter:
            return _plain_tensor(value)
        return {REFUSED: f"a torch.Tensor subclass ({kind.__name__}) was returned; return a plain tensor"}
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):  # e.g. numpy integers, IntEnum
        return int(value)
    if isinstance(value, float):  # e.g. numpy.float64
        return float(value)
    if isinstance(value, str):
        return str(value)
    if kind.__module__ == "numpy":
        try:
            import numpy
        except ImportError:  # pragma: no cover
            pass
        else:
            if isinstance(value, numpy.generic):
                return _sanitize(value.item(), depth + 1, torch)
            if isinstance(value, numpy.ndarray):
                from torch import from_numpy  # an array is sent as a tensor: torch is needed now

                return from_numpy(value.copy())
    if isinstance(value, dict):
        if not all(type(k) in (str, int, bool, float) or k is None for k in value):
            return {REFUSED: "a dict with keys other than str/int/float/bool/None"}
        return {k: _sanitize(v, depth + 1, torch) for k, v in value.items()}
    return {REFUSED: f"unsupported type {kind.__module__}.{kind.__qualname__}; return tensors, "
                     f"numbers, strings, None, or tuples/lists/dicts of them"}


def snapshot(value: Any) -> Any:
    """The gradeable state of an argument: modules and optimizers by their state dicts."""
    torch = loaded_torch()  # not imported (a torch-free worker): no value is a module or optimizer
    if torch is None:
        return sanitize(value)
    if isinstance(value, torch.nn.Module):
        return {k: _plain_tensor(v) for k, v in value.state_dict().items()}
    if isinstance(value, torch.optim.Optimizer):
        return sanitize(value.state_dict()["state"])
    return sanitize(value)
