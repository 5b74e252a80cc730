"""SwiGLU in one pass: our solution to `fused-swiglu`.

The MLP of Llama-style models computes silu(x @ W_gate) * (x @ W_up). After the two matmuls, eager
PyTorch runs silu and the product as separate kernels with a full-size temporary between them;
here each program reads a block of gate and up once (bf16), computes in fp32 and writes bf16 once.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

# Absolute: `kata run` and `kata bench` load this file as a solution module, outside its package.
from infrakata.kernels.bf16 import bf16_bits, bf16_bits_view

BLOCK = 4096  # elements per program: the op is elementwise, so the 2-D shape does not matter


@triton.jit
def _swiglu_kernel(gate_ptr, up_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n  # the last program runs past the end unless n is a multiple of BLOCK
    # bf16 is widened before any arithmetic: bf16 arithmetic is wrong in the Triton interpreter.
    gate = tl.load(gate_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(up_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    # sigmoid(g) from e = exp(-|g|) in (0, 1]: 1 / (1 + e) for g >= 0, e / (1 + e) below. Nothing
    # overflows (exp(-g) would for g < -88.7; harmless on a GPU, but noisy in the interpreter).
    e = tl.exp(-tl.abs(gate))
    sigmoid = tl.where(gate >= 0, 1.0, e) / (1.0 + e)
    out = gate * sigmoid * up
    tl.store(out_ptr + offs, bf16_bits(out), mask=mask)


def fused_swiglu(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    """silu(gate) * up for bf16 tensors of one shape, computed in fp32, returned as bf16."""
    if gate.shape != up.shape:
        raise ValueError(f"gate {tuple(gate.shape)} and up {tuple(up.shape)} must have the same shape")
    gate, up = gate.contiguous(), up.contiguous()
    out = torch.empty_like(gate)
    n = gate.numel()
    if n:
        _swiglu_kernel[(triton.cdiv(n, BLOCK),)](gate, up, bf16_bits_view(out), n, BLOCK=BLOCK, num_warps=8)
    return out
