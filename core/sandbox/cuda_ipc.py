"""A worker's output handed to another process without a copy: a CUDA tensor as the handles another process
opens it by (torch.multiprocessing's CUDA IPC), read back field by field in the trusted worker; anything else as
it is. The benchmark's repetitions (core/bench/timing.py, core/bench/kernelbench.py) and the CUDA probe use it."""

from __future__ import annotations

import re
from typing import Any

import torch

IPC = "__kata_cuda_ipc__"
EMPTY = "__kata_cuda_empty__"
# torch names a CUDA IPC reference-counter file /torch_<pid>_<random>_<counter> (NewProcessWideShmHandle).
TORCH_SHM_NAME = re.compile(r"/torch_\d+_\d+_\d+")
DTYPES = {str(dtype).removeprefix("torch."): dtype for dtype in (
    torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
    torch.int8, torch.uint8, torch.bool)}


def export_output(value: Any) -> Any:
    """A CUDA tensor becomes the handles another process opens it by (torch.multiprocessing's CUDA IPC);
    everything else is sent as it is (small: the CPU gate's shapes)."""
    if type(value) is torch.Tensor and value.is_cuda and value.dtype in DTYPES.values() and value.numel() == 0:
        # An empty tensor has no device memory to share (its IPC handle is None): its shape says it all.
        return {EMPTY: [list(value.shape), str(value.dtype).removeprefix("torch."), value.device.index]}
    if type(value) is torch.Tensor and value.is_cuda and value.dtype in DTYPES.values():
        from torch.multiprocessing.reductions import reduce_tensor

        _, (_, size, stride, offset, _, dtype, device, handle, storage_bytes, storage_offset, _,
            counter_handle, counter_offset, event_handle, event_sync) = reduce_tensor(value.detach())
        # Bytes as hex: what comes from this process is plain data (core/sandbox/wire.py).
        return {IPC: [list(size), list(stride), offset, str(dtype).removeprefix("torch."), device, handle.hex(),
                      storage_bytes, storage_offset, counter_handle.hex(), counter_offset,
                      None if event_handle is None else event_handle.hex(), event_sync]}
    if isinstance(value, (tuple, list)):
        exported = [export_output(v) for v in value]
        return tuple(exported) if isinstance(value, tuple) else exported
    if isinstance(value, dict) and IPC not in value and EMPTY not in value:
        return {k: export_output(v) for k, v in value.items()}
    return value


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True


def import_output(value: Any) -> Any:
    """export_output's inverse, in the trusted worker. What came from the solution's process is checked
    field by field before CUDA is asked to open it."""
    if isinstance(value, dict) and EMPTY in value:
        size, dtype, device = value[EMPTY]
        if not (isinstance(size, list) and 0 in size and all(type(i) is int and i >= 0 for i in size)
                and dtype in DTYPES and (device is None or type(device) is int and device >= 0)):
            raise ValueError("malformed empty CUDA output")
        return torch.empty(size, dtype=DTYPES[dtype], device="cuda" if device is None else f"cuda:{device}")
    if isinstance(value, dict) and IPC in value:
        from torch.multiprocessing.reductions import rebuild_cuda_tensor

        (size, stride, offset, dtype, device, handle, storage_bytes, storage_offset, counter_handle,
         counter_offset, event_handle, event_sync) = value[IPC]
        ints = [offset, device, storage_bytes, storage_offset, counter_offset, *size, *stride]
        hexes = [handle, counter_handle] + ([] if event_handle is None else [event_handle])
        if not all(type(i) is int and i >= 0 for i in ints) or dtype not in DTYPES or \
                not all(isinstance(h, str) and _is_hex(h) for h in hexes) or type(event_sync) is not bool:
            raise ValueError("malformed CUDA IPC handles")
        return rebuild_cuda_tensor(torch.Tensor, torch.Size(size), tuple(stride), offset, torch.UntypedStorage,
                                   DTYPES[dtype], device, bytes.fromhex(handle), storage_bytes, storage_offset,
                                   False, bytes.fromhex(counter_handle), counter_offset,
                                   None if event_handle is None else bytes.fromhex(event_handle), event_sync)
    if isinstance(value, (tuple, list)):
        imported = [import_output(v) for v in value]
        return tuple(imported) if isinstance(value, tuple) else imported
    if isinstance(value, dict):
        return {k: import_output(v) for k, v in value.items()}
    return value


def counter_files(value: Any) -> set[str]:
    """The names of the shared-memory files (in /dev/shm) that export_output's CUDA IPC handles keep their
    reference counters in, as far as they look like torch's names (/torch_<pid>_<random>_<counter>). Read
    in the grader from what the solution's process sent."""
    found: set[str] = set()
    if isinstance(value, dict) and IPC in value:
        fields = value[IPC]
        counter_handle = fields[8] if isinstance(fields, list) and len(fields) == 12 else None
        try:
            name = bytes.fromhex(counter_handle).decode("ascii") if isinstance(counter_handle, str) else ""
        except (ValueError, UnicodeDecodeError):
            name = ""
        if TORCH_SHM_NAME.fullmatch(name):
            found.add(name.lstrip("/"))
    elif isinstance(value, (tuple, list)):
        for item in value:
            found |= counter_files(item)
    elif isinstance(value, dict):
        for item in value.values():
            found |= counter_files(item)
    return found
