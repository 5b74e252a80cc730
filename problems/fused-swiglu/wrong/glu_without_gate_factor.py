# expect: wrong_answer
# why: computes sigmoid(gate) * up, the original GLU, instead of silu(gate) * up = gate *
#      sigmoid(gate) * up: the factor gate is missing
import torch
import triton
import triton.language as tl

from infrakata.kernels.bf16 import bf16_bits, bf16_bits_view

BLOCK = 4096


@triton.jit
def _swiglu_kernel(gate_ptr, up_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    gate = tl.load(gate_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(up_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    e = tl.exp(-tl.abs(gate))
    out = tl.where(gate >= 0, 1.0, e) / (1.0 + e) * up
    tl.store(out_ptr + offs, bf16_bits(out), mask=mask)


def fused_swiglu(gate, up):
    gate, up = gate.contiguous(), up.contiguous()
    out = torch.empty_like(gate)
    n = gate.numel()
    _swiglu_kernel[(triton.cdiv(n, BLOCK),)](gate, up, bf16_bits_view(out), n, BLOCK=BLOCK)
    return out
