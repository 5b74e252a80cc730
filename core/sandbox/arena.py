"""The inputs a solution may not change, in memory the grader can read after the call.

A problem says which arguments a solution may modify; the others must come back as they went in. A
worker cannot be asked whether it changed them (once the solution has run, what it says is the
solution's word), so the tensors among those arguments live in a memory file shared with the grader:
the worker builds its tensors over that memory, and after each call the grader compares the bytes
there with its own copy. Before each call the case's bytes are written afresh, so nothing a solution
did to one case's inputs reaches another's.

Only CPU tensors are shared (a case graded on CUDA has its inputs copied to the device; there the
worker's own report of them is what is checked), and arguments whose tensors sit in tuples, lists and
dicts are shared as long as the containers hold nothing else that could change.
"""

from __future__ import annotations

import functools
import mmap
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from infrakata.core.torch_stand_in import loaded_torch

ALIGN = 64


@dataclass(frozen=True)
class SharedTensor:
    """Where a tensor argument lies in the arena: the worker builds the tensor over these bytes."""

    offset: int
    nbytes: int
    shape: tuple[int, ...]
    stride: tuple[int, ...]  # as the argument had them: a transpose reaches the solution as a transpose
    dtype: str  # e.g. "float32"
    requires_grad: bool = False


def _leaves(value: Any) -> Iterator[Any]:
    """What an argument holds below its tuples, lists and dicts."""
    if isinstance(value, (tuple, list)):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    else:
        yield value


def _shareable(value: Any) -> bool:
    """Whether an argument is tensors (and values that cannot change) all the way down."""
    return all(_shareable_leaf(leaf) for leaf in _leaves(value))


def _is_plain_tensor(value: Any) -> bool:
    """Without importing torch: where it is not imported (a run of a scalar kata), nothing is a tensor."""
    torch = loaded_torch()
    return torch is not None and type(value) is torch.Tensor


def _shareable_leaf(leaf: Any) -> bool:
    if _is_plain_tensor(leaf):
        import torch

        return leaf.device.type == "cpu" and leaf.layout == torch.strided and not leaf.is_quantized
    return leaf is None or isinstance(leaf, (bool, int, float, str, bytes))


def _placed(value: Any, place: Callable[[Any], SharedTensor]) -> Any:
    """`value` with each tensor in it (below its tuples, lists and dicts) replaced by `place(tensor)`."""
    if _is_plain_tensor(value):
        return place(value)
    if isinstance(value, (tuple, list)):
        items = [_placed(v, place) for v in value]
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        return {k: _placed(v, place) for k, v in value.items()}
    return value


def _span_bytes(value: Any) -> Any:
    """The bytes of the span of its storage a tensor reaches, as they lie (so that its strides hold in the
    arena), as a uint8 tensor: a view where the tensor is contiguous."""
    import torch

    tensor = value.detach()
    span = 1 + sum((n - 1) * s for n, s in zip(tensor.shape, tensor.stride(), strict=True)) if tensor.numel() else 0
    return torch.as_strided(tensor, (span,), (1,), tensor.storage_offset()).contiguous().view(torch.uint8)


def _shared(value: Any, offset: int, nbytes: int) -> SharedTensor:
    return SharedTensor(offset, nbytes, tuple(value.shape), tuple(value.stride()),
                        str(value.dtype).removeprefix("torch."), value.requires_grad)


def _aligned(offset: int) -> int:
    return -(-offset // ALIGN) * ALIGN


class ArenaLayout:
    """Where each case's unchangeable tensors lie in an arena, and their bytes: made once per set of
    cases (a problem's prepared cases), extended by a run's fresh case, laid into each run's arena."""

    def __init__(self, arguments: list[dict[Any, Any]], after: ArenaLayout | None = None):
        """`arguments`: per case, {argument key: value} of the arguments that must come back unchanged;
        placed after the cases of `after`, whose places they keep."""
        self.regions: list[dict[Any, Any]] = list(after.regions) if after else []  # per case: key -> placeholders
        self.spans: list[tuple[int, int]] = list(after.spans) if after else []  # per case: (offset, length)
        self.pristine: list[bytes] = list(after.pristine) if after else []  # per case: its bytes as they went in
        self._size = after.size if after else 0
        for case in arguments:
            start, chunks = self._size, bytearray()
            self.regions.append({key: self._place(value, chunks) for key, value in case.items()})
            self.spans.append((start, self._size - start))
            self.pristine.append(bytes(chunks))
        self.has_tensor = any(isinstance(leaf, SharedTensor) for region in self.regions for value in region.values()
                              for leaf in _leaves(value))

    @property
    def size(self) -> int:
        return self._size

    def _place(self, value: Any, chunks: bytearray) -> Any:
        """`value` with each tensor in it replaced by where its bytes are put in the arena."""
        def put(tensor: Any) -> SharedTensor:
            data = _span_bytes(tensor).numpy()
            offset = _aligned(self._size)
            chunks.extend(bytes(offset - self._size))
            chunks.extend(data.tobytes())
            self._size = offset + len(data)
            return _shared(tensor, offset, len(data))

        return _placed(value, put)

    @classmethod
    def for_cases(cls, arguments: list[dict[Any, Any]], after: ArenaLayout | None = None) -> ArenaLayout:
        """The layout of the shareable arguments of these cases (see `__init__`)."""
        return cls([{k: v for k, v in case.items() if _shareable(v)} for case in arguments], after)


class InputArena:
    """The grader's side: one memory file for a run's unchangeable tensor arguments, laid out as `layout`."""

    def __init__(self, layout: ArenaLayout, capacity: int = 0):
        """`capacity`: the bytes the memory file offers, where later layouts are to `hold` it (a memory file's
        pages are taken as they are written: what no layout reaches costs nothing)."""
        self.layout = layout
        self.capacity = max(layout.size, capacity, 1)
        self.fd = os.memfd_create("kata-inputs", os.MFD_CLOEXEC)
        os.ftruncate(self.fd, self.capacity)
        self.memory = mmap.mmap(self.fd, self.capacity)
        self._laid: dict[Any, list[tuple[int, Any]]] = {}  # what `lay` put last: key -> [(offset, its bytes)]
        for (start, length), data in zip(layout.spans, layout.pristine, strict=True):
            self.memory[start:start + length] = data

    @classmethod
    def for_layout(cls, layout: ArenaLayout) -> InputArena | None:
        """An arena for this layout, or None where it places no tensor."""
        return cls(layout) if layout.has_tensor else None

    def shared_keys(self, case: int) -> set[Any]:
        return set(self.layout.regions[case])

    def prepare(self, case: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...],
                                                                                     dict[str, Any]]:
        """The case's arguments as sent (its shared tensors as placeholders), its bytes written afresh."""
        start, length = self.layout.spans[case]
        self.memory[start:start + length] = self.layout.pristine[case]
        positional, named = list(args), dict(kwargs)
        for key, placed in self.layout.regions[case].items():
            if isinstance(key, str):
                named[key] = placed
            else:
                positional[key] = placed
        return tuple(positional), named

    def after_call(self, case: int) -> dict[Any, Any]:
        """The case's shared arguments as the call left them, read by the grader from the shared memory."""
        start, length = self.layout.spans[case]
        if self.memory[start:start + length] == self.layout.pristine[case]:
            return {}
        return {key: _materialize(placed, self.memory, copy=True) for key, placed in self.layout.regions[case].items()}

    def lay(self, values: dict[Any, Any]) -> dict[Any, Any]:
        """Values laid straight into the arena, from its start (a KernelBench trial's inputs, made one trial at a
        time, where keeping each case's bytes as a layout does would hold every trial's at once): the shareable
        ones, each tensor replaced by where it lies. `changed_since_laid` then compares the arena with the
        tensors themselves. ValueError where they exceed the arena's capacity."""
        import torch

        end = 0
        self._laid = {}

        def put(tensor: Any, key: Any) -> SharedTensor:
            nonlocal end
            data = _span_bytes(tensor)
            offset = _aligned(end)
            end = offset + data.numel()
            if end > self.capacity:
                raise ValueError(f"inputs of over {end} bytes do not fit an arena of {self.capacity}")
            if data.numel():
                torch.frombuffer(self.memory, dtype=torch.uint8, count=data.numel(), offset=offset).copy_(data)
            self._laid.setdefault(key, []).append((offset, data))
            return _shared(tensor, offset, data.numel())

        return {key: _placed(value, functools.partial(put, key=key)) for key, value in values.items()
                if _shareable(value)}

    def changed_since_laid(self) -> list[Any]:
        """The keys of the values last laid whose bytes in the arena differ from the tensors they were made from."""
        import torch

        return [key for key, leaves in self._laid.items()
                if any(data.numel() and not torch.equal(
                    torch.frombuffer(self.memory, dtype=torch.uint8, count=data.numel(), offset=offset), data)
                       for offset, data in leaves)]

    def close(self) -> None:
        self.memory.close()
        os.close(self.fd)


def _materialize(value: Any, memory: mmap.mmap, copy: bool = False) -> Any:
    if isinstance(value, SharedTensor):
        import torch

        raw = torch.frombuffer(memory, dtype=torch.uint8, count=value.nbytes, offset=value.offset) \
            if value.nbytes else torch.empty(0, dtype=torch.uint8)
        tensor = raw.view(getattr(torch, value.dtype)).as_strided(value.shape, value.stride, 0)
        if copy:
            tensor = tensor.clone()
        return tensor.requires_grad_() if value.requires_grad and tensor.is_floating_point() else tensor
    if isinstance(value, (tuple, list)):
        items = [_materialize(v, memory, copy) for v in value]
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        return {k: _materialize(v, memory, copy) for k, v in value.items()}
    return value


class WorkerArena:
    """The worker's side: the arena mapped, and the placeholders of a call turned into tensors over it."""

    def __init__(self, fd: int):
        self.memory = mmap.mmap(fd, 0)
        os.close(fd)

    def arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return tuple(_materialize(a, self.memory) for a in args), {k: _materialize(v, self.memory)
                                                                  for k, v in kwargs.items()}
