"""What a call's Triton kernels did, measured where the interpreter runs them (TRITON_INTERPRET=1, on the CPU).

The interpreter executes every grid, load and store of a kernel in this process. Wrapped here, for each call of
the entry point (`Meter.begin` .. `Meter.finish`): its launches (each grid run, however it was reached: `kernel[grid]`,
an autotuner, a hook inside another launch, the grid executor called directly), the bytes its kernels loaded and
stored, per buffer, its largest tile (the most elements one load or store moved), and every byte a kernel wrote
with what it wrote there. A load or store outside the launch's tensors is refused at once, naming the tensor and
the index (`tl.load reads x[4100] of 4096 elements: mask the tail`), where the interpreter would read or write
whatever memory lay there. A load of a buffer that is neither an input of the call, nor written by a kernel of
the call, nor one constant fill (torch.zeros, torch.full), is refused: a value computed outside the kernels and
handed to them. At the call's end, `finish` says where a graded output holds a byte no kernel wrote, or one
changed after a kernel wrote it, and whether a graded argument still lies in the storage it came with.

These are teaching rules, measured whatever route the rest of the code took, not a boundary: the solution shares
this process and could unwrap them (docs/KERNELS.md; the grader's own checks are the boundary). The autotuner
takes its first configuration here (`take_first_config`): it would time each one, and the interpreter has no
timer to give it.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from infrakata.core.sandbox.protocol import KernelMeasures

# Integer element types: what `[grading] schedules` lets a call compute with torch and hand to its kernels.
_INTEGER_KINDS = ("i", "u", "b")


class KernelRuleError(RuntimeError):
    """A kernel's access the interpreter refuses. `line`: the solution's line that made it; `forbidden`: a rule of
    the kata's (a value computed outside the kernels), not a mistake (a load past the end)."""

    def __init__(self, message: str, line: int | None, forbidden: bool = False):
        super().__init__(message)
        self.line, self.forbidden = line, forbidden


@dataclass
class _Buffer:
    """A storage some launch of the call was given."""

    base: int
    nbytes: int
    name: str  # the kernel parameter it was first passed as
    is_input: bool  # a storage of the call's own arguments
    written: np.ndarray | None = None  # per byte: a kernel of the call wrote it
    shadow: np.ndarray | None = None  # per byte: what it wrote
    loaded: int = 0
    stored: int = 0
    fill_checked: bool = False  # what no kernel wrote of it was found one constant fill (or it is exempt)

    def mark(self, offsets: np.ndarray, data: np.ndarray) -> None:
        """Bytes `offsets[i] .. + itemsize` written with `data[i]` (uint8 rows of itemsize)."""
        if self.written is None:
            self.written = np.zeros(self.nbytes, dtype=bool)
            self.shadow = np.zeros(self.nbytes, dtype=np.uint8)
        assert self.shadow is not None
        for byte in range(data.shape[1]):
            self.written[offsets + byte] = True
            self.shadow[offsets + byte] = data[:, byte]


@dataclass
class _Argument:
    """A tensor argument of a launch, for messages: its parameter name, where it starts, how many elements."""

    name: str
    start: int
    numel: int
    itemsize: int


@dataclass
class _Launch:
    bases: np.ndarray  # sorted storage starts of its tensors
    ends: np.ndarray
    buffers: list[_Buffer]
    arguments: list[_Argument]


@dataclass
class _Call:
    inputs: set[int]  # storage starts of the call's arguments
    graded: dict[Any, tuple[int, int, tuple[int, ...], tuple[int, ...]]]  # key -> (storage, offset, shape, stride)
    buffers: dict[int, _Buffer] = field(default_factory=dict)
    launches: int = 0
    tile: int = 0
    launched: list[_Launch] = field(default_factory=list)  # the launches under way (a hook may launch inside one)


def _tensors(value: Any) -> Iterator[Any]:
    if isinstance(value, (tuple, list)):
        for item in value:
            yield from _tensors(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors(item)
    elif hasattr(value, "untyped_storage") and hasattr(value, "data_ptr"):
        yield value


def _solution_line(filename: str) -> int | None:
    """The line of the solution's file that is running (a kernel body's load or store)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == filename:
            return frame.f_lineno
        frame = frame.f_back  # type: ignore[assignment]
    return None


class Meter:
    """The measures of the call under way (see the module's docstring); one per worker."""

    def __init__(self, filename: str, schedules: bool):
        self.filename = filename  # the solution's: where a refused access is placed
        self.schedules = schedules  # integer buffers computed with torch may be read ([grading] schedules)
        self.call: _Call | None = None

    # -- the call ------------------------------------------------------------------------------------------------

    def begin(self, args: tuple[Any, ...], kwargs: dict[str, Any], graded: tuple[Any, ...]) -> None:
        inputs = {t.untyped_storage().data_ptr() for t in _tensors((args, kwargs))}
        held = {}
        for key in graded:
            value = kwargs.get(key) if isinstance(key, str) else args[key] if key < len(args) else None
            for index, tensor in enumerate(_tensors(value)):
                held[(key, index)] = (tensor.untyped_storage().data_ptr(), tensor.storage_offset(),
                                      tuple(tensor.shape), tuple(tensor.stride()))
        self.call = _Call(inputs, held)

    def finish(self, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, KernelMeasures | None]:
        """The call's launches and measures (protocol.KernelMeasures): bytes loaded and stored (in all, and per
        buffer), the largest tile, where a graded output or argument holds a byte no kernel wrote or one changed
        after, and the graded arguments that left their storage."""
        call, self.call = self.call, None
        if call is None:
            return 0, None
        moved: list[Any] = []
        graded_now: list[tuple[Any, Any]] = []
        for (key, index), held in call.graded.items():
            tensor = self._graded_tensor(args, kwargs, key, index)
            now = None if tensor is None else (tensor.untyped_storage().data_ptr(), tensor.storage_offset(),
                                                tuple(tensor.shape), tuple(tensor.stride()))
            if now != held:
                moved.append(key)
            else:
                graded_now.append((key, tensor))
        returned = list(_tensors(value))
        outputs = [("return" if len(returned) == 1 else f"return[{i}]", t) for i, t in enumerate(returned)]
        places: dict[str, tuple[Any, tuple[int, ...]]] = {}
        for where, tensor in [*outputs, *graded_now]:
            found = self._provenance(call, tensor)
            if found is not None:
                places[found[0]] = (where, tuple(found[1]))
                break
        return call.launches, KernelMeasures(
            call.tile, sum(b.loaded for b in call.buffers.values()), sum(b.stored for b in call.buffers.values()),
            tuple((b.name, b.loaded, b.stored, b.is_input) for b in call.buffers.values()),
            places.get("unwritten"), places.get("changed"), tuple(dict.fromkeys(moved)))

    @staticmethod
    def _graded_tensor(args: tuple[Any, ...], kwargs: dict[str, Any], key: Any, index: int) -> Any:
        value = kwargs.get(key) if isinstance(key, str) else args[key] if key < len(args) else None
        tensors = list(_tensors(value))
        return tensors[index] if index < len(tensors) else None

    @staticmethod
    def _provenance(call: _Call, tensor: Any) -> tuple[str, list[int]] | None:
        """("unwritten" or "changed", the index of its first such element) where `tensor` holds a value no kernel
        of the call wrote, or one changed after it did; None where every element is as a kernel left it."""
        if tensor.numel() == 0:
            return None
        import torch

        buffer = call.buffers.get(tensor.untyped_storage().data_ptr())
        itemsize = tensor.element_size()
        # Each element's first byte, as an offset into its storage.
        starts = (torch.as_strided(torch.arange(tensor.untyped_storage().nbytes() // itemsize), tensor.shape,
                                   tensor.stride(), tensor.storage_offset()).reshape(-1).numpy() * itemsize)
        if buffer is None or buffer.written is None:
            return "unwritten", [0] * tensor.dim()
        assert buffer.shadow is not None
        spans = starts[:, None] + np.arange(itemsize)[None, :]
        written = buffer.written[spans].all(axis=1)
        if not written.all():
            return "unwritten", [int(i) for i in np.unravel_index(int(np.argmin(written)), tuple(tensor.shape))]
        now = tensor.detach().contiguous().view(torch.uint8).reshape(-1, itemsize).numpy()
        intact = (now == buffer.shadow[spans]).all(axis=1)
        if not intact.all():
            return "changed", [int(i) for i in np.unravel_index(int(np.argmin(intact)), tuple(tensor.shape))]
        return None

    # -- inside the interpreter ----------------------------------------------------------------------------------

    def launch(self, names: list[str], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """A grid about to run: one launch of the call's, and the tensors it may touch."""
        call = self.call
        if call is None:
            return
        call.launches += 1
        arguments, buffers = [], {}
        named = [*zip(names, args, strict=False), *kwargs.items()]
        for name, value in named:
            for tensor in _tensors(value):
                storage = tensor.untyped_storage()
                base = storage.data_ptr()
                buffer = call.buffers.get(base)
                if buffer is None:
                    buffer = call.buffers[base] = _Buffer(base, storage.nbytes(), name, base in call.inputs)
                buffers[base] = buffer
                arguments.append(_Argument(name, tensor.data_ptr(), tensor.numel(), tensor.element_size()))
        ordered = sorted(buffers.values(), key=lambda b: b.base)
        call.launched.append(_Launch(np.array([b.base for b in ordered], dtype=np.uint64),
                                     np.array([b.base + b.nbytes for b in ordered], dtype=np.uint64),
                                     ordered, arguments))

    def landed(self) -> None:
        if self.call is not None and self.call.launched:
            self.call.launched.pop()

    def access(self, op: str, pointers: np.ndarray, mask: np.ndarray, itemsize: int, stored: np.ndarray | None,
               integer: bool) -> None:
        """A load's or a store's addresses (`mask`ed), checked and counted; a store's bytes (`stored`) kept."""
        call = self.call
        if call is None or not call.launched:
            return
        launch = call.launched[-1]
        addresses = np.asarray(pointers, dtype=np.uint64)
        chosen = np.broadcast_to(np.asarray(mask, dtype=bool), addresses.shape)
        call.tile = max(call.tile, int(addresses.size))
        hit = addresses[chosen]
        if hit.size == 0:
            return
        slot = np.searchsorted(launch.bases, hit, side="right").astype(np.int64) - 1
        inside = (slot >= 0) & (hit + np.uint64(itemsize) <= launch.ends[np.clip(slot, 0, None)])
        if not inside.all():
            raise KernelRuleError(self._outside(op, launch, int(hit[np.argmin(inside)]), itemsize),
                                  _solution_line(self.filename))
        values = None if stored is None else \
            np.ascontiguousarray(np.broadcast_to(stored, addresses.shape)[chosen]).view(np.uint8).reshape(-1, itemsize)
        for index in np.unique(slot):
            buffer = launch.buffers[int(index)]
            mine = slot == index
            offsets = (hit[mine] - np.uint64(buffer.base)).astype(np.int64)
            if op == "store":
                buffer.stored += int(mine.sum()) * itemsize
                if values is not None:
                    buffer.mark(offsets, values[mine])
            else:
                buffer.loaded += int(mine.sum()) * itemsize
                self._may_read(buffer, itemsize, integer)

    def _may_read(self, buffer: _Buffer, itemsize: int, integer: bool) -> None:
        """A buffer a kernel reads is an input of the call, written by its kernels, or one constant fill: what no
        kernel of the call wrote of it is checked, whole, at its first read (a read of one element at a time
        would see one value only)."""
        if buffer.is_input or buffer.fill_checked or (integer and self.schedules):
            return
        buffer.fill_checked = True
        count = buffer.nbytes // itemsize
        rows = np.frombuffer(ctypes.string_at(buffer.base, count * itemsize), dtype=np.uint8).reshape(count, itemsize)
        if buffer.written is not None:
            rows = rows[~buffer.written[:count * itemsize].reshape(count, itemsize).all(axis=1)]
        if len(rows) and not (rows == rows[0]).all():
            raise KernelRuleError(
                f"a kernel read `{buffer.name}`, which holds values that neither come from the call's arguments nor "
                f"were written by a kernel of the call (nor are one constant fill, as torch.zeros or torch.full "
                f"make): a value computed outside the kernels; compute it in a kernel",
                _solution_line(self.filename), forbidden=True)

    @staticmethod
    def _outside(op: str, launch: _Launch, address: int, itemsize: int) -> str:
        """Which tensor an address missed, and by how much: the nearest argument that starts at or below it."""
        verb = "reads" if op == "load" else "writes"
        below = [a for a in launch.arguments if a.start <= address]
        nearest = max(below, key=lambda a: a.start) if below else min(launch.arguments, key=lambda a: a.start,
                                                                       default=None)
        if nearest is None:
            return f"tl.{op} {verb} memory no tensor of the launch holds: mask the tail"
        index = (address - nearest.start) // (nearest.itemsize or itemsize)
        elements = f"{nearest.numel} element{'' if nearest.numel == 1 else 's'}"
        return f"tl.{op} {verb} {nearest.name}[{index}] of {elements}: mask the tail (tl.{op}(..., mask=offsets < n))"


# -- the wrapping -------------------------------------------------------------------------------------------------

_meter: Meter | None = None


def install(filename: str, schedules: bool) -> Meter:
    """Wrap the interpreter's grid executor and memory operations for this worker's calls (child.main, before the
    solution loads; TRITON_INTERPRET=1). -> the meter, which the worker holds."""
    global _meter
    from triton.runtime import interpreter

    meter = _meter = Meter(filename, schedules)
    executor = interpreter.GridExecutor
    original_call = executor.__call__

    @functools.wraps(original_call)
    def run_grid(self: Any, *args: Any, **kwargs: Any) -> Any:
        meter.launch(list(self.arg_names), args, kwargs)
        try:
            return original_call(self, *args, **kwargs)
        finally:
            meter.landed()

    executor.__call__ = run_grid
    builder = interpreter.InterpreterBuilder
    masked_load, masked_store = builder.create_masked_load, builder.create_masked_store
    atomic_rmw, atomic_cas = builder.create_atomic_rmw, builder.create_atomic_cas

    def integer(handle: Any) -> bool:
        return np.dtype(interpreter._get_np_dtype(handle.get_element_ty())).kind in _INTEGER_KINDS

    @functools.wraps(masked_load)
    def load(self: Any, ptrs: Any, mask: Any, other: Any, *rest: Any) -> Any:
        result = masked_load(self, ptrs, mask, other, *rest)
        meter.access("load", ptrs.data, mask.data, result.data.itemsize, None, integer(ptrs))
        return result

    @functools.wraps(masked_store)
    def store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any) -> Any:
        meter.access("store", ptrs.data, mask.data, value.data.itemsize, value.data, integer(ptrs))
        return masked_store(self, ptrs, value, mask, *rest)

    @functools.wraps(atomic_rmw)
    def rmw(self: Any, op: Any, ptr: Any, val: Any, mask: Any, *rest: Any) -> Any:
        meter.access("load", ptr.data, mask.data, val.data.itemsize, None, integer(ptr))
        result = atomic_rmw(self, op, ptr, val, mask, *rest)
        left = _read_back(ptr.data, mask.data, val.data.dtype)  # what the atomics left there
        meter.access("store", ptr.data, mask.data, val.data.itemsize, left, integer(ptr))
        return result

    @functools.wraps(atomic_cas)
    def cas(self: Any, ptr: Any, cmp: Any, val: Any, *rest: Any) -> Any:
        everywhere = np.ones(np.shape(ptr.data), dtype=bool)
        meter.access("load", ptr.data, everywhere, val.data.itemsize, None, integer(ptr))
        result = atomic_cas(self, ptr, cmp, val, *rest)
        meter.access("store", ptr.data, everywhere, val.data.itemsize, _read_back(ptr.data, everywhere, val.data.dtype),
                     integer(ptr))
        return result

    builder.create_masked_load, builder.create_masked_store = load, store
    builder.create_atomic_rmw, builder.create_atomic_cas = rmw, cas
    return meter


def _read_back(pointers: Any, mask: Any, dtype: np.dtype) -> np.ndarray:
    """What memory holds at `pointers` now (an atomic's result), element by element, zeros where masked off."""
    addresses = np.asarray(pointers, dtype=np.uint64)
    chosen = np.broadcast_to(np.asarray(mask, dtype=bool), addresses.shape)
    out = np.zeros(addresses.shape, dtype=dtype)
    for index in zip(*np.nonzero(chosen), strict=False):
        out[index] = np.frombuffer(ctypes.string_at(int(addresses[index]), out.itemsize), dtype=dtype)[0]
    return out


def take_first_config() -> None:
    """Through the interpreter an autotuner with several configurations would time each on a GPU benchmarker that
    is not there ("0 active drivers"): it takes the first one that its pruning keeps, as a single configuration
    takes it (docs/KERNELS.md)."""
    from triton.runtime.autotuner import Autotuner

    prune = Autotuner.prune_configs

    @functools.wraps(prune)
    def first(self: Any, *args: Any, **kwargs: Any) -> Any:
        return prune(self, *args, **kwargs)[:1]

    Autotuner.prune_configs = first

