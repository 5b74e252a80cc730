"""bf16 stores that round the same way on a GPU and in the Triton interpreter.

The interpreter converts fp32 to bf16 by truncation; GPUs (and torch) round to nearest even. Kernels
that must match torch bit for bit round here, in integer arithmetic, and store the 16 bits into an
int16 view of the bf16 output (`bf16_bits_view`).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def bf16_bits(x):
    """fp32 -> the int16 bit pattern of bf16(x), rounded to nearest even (NaN and Inf preserved)."""
    bits = x.to(tl.uint32, bitcast=True)
    rounded = bits + 0x7FFF + ((bits >> 16) & 1)
    return (rounded >> 16).to(tl.int16)


def bf16_bits_view(tensor: torch.Tensor) -> torch.Tensor:
    """The int16 view of a bf16 tensor that a kernel stores `bf16_bits` into."""
    return tensor.view(torch.int16)
