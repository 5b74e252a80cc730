"""The CUDA route's probe, once per zygote on a CUDA machine (core/sandbox/zygote.py): what a CUDA worker
must do and what the benchmark needs from it, tried before any solution meets it.

A throwaway worker, confined as every CUDA worker is, initialises CUDA, launches a Triton kernel (a torch
op where there is no Triton) and exports its output by CUDA IPC (`make_output`); a throwaway trusted
process opens the handles and checks the values on the device (`check_output`), as the benchmark's
reference worker checks a solution's last output. Either failing refuses CUDA grading here, with the
reason (never an unconfined fallback).
"""

from __future__ import annotations

from typing import Any

import torch

ELEMENTS = 4096
BLOCK = 1024


def _expected(device: str) -> torch.Tensor:
    return torch.arange(ELEMENTS, device=device, dtype=torch.float32) * 3 + 1


def _launch_triton(out: torch.Tensor) -> None:
    import triton
    import triton.language as tl

    @triton.jit  # type: ignore[untyped-decorator]
    def three_i_plus_one(out_ptr, n, block: tl.constexpr):  # type: ignore[no-untyped-def]
        offsets = tl.program_id(0) * block + tl.arange(0, block)
        tl.store(out_ptr + offsets, offsets.to(tl.float32) * 3 + 1, mask=offsets < n)

    three_i_plus_one[(triton.cdiv(ELEMENTS, BLOCK),)](out, ELEMENTS, block=BLOCK)


def make_output(triton: bool) -> Any:
    """In the confined CUDA worker: the probe's output on the device, computed by a Triton kernel where
    Triton is installed, -> its IPC handles (plain data)."""
    from infrakata.core.sandbox.cuda_ipc import export_output

    out = torch.empty(ELEMENTS, device="cuda", dtype=torch.float32)
    if triton:
        _launch_triton(out)
    else:
        out.copy_(_expected("cuda"))
    torch.cuda.synchronize()
    return export_output(out)


def check_output(handles: Any) -> str:
    """In the trusted process: open the handles and compare on the device. -> "" or what went wrong."""
    from infrakata.core.sandbox.cuda_ipc import import_output

    opened = import_output(handles)
    if not isinstance(opened, torch.Tensor) or not opened.is_cuda:
        return f"the handles opened as {type(opened).__name__}, not a CUDA tensor"
    if opened.shape != (ELEMENTS,) or not torch.equal(opened, _expected(str(opened.device))):
        return "the output opened with other values than the kernel wrote"
    return ""
