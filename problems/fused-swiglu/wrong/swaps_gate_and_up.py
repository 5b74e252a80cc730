# expect: wrong_answer
# why: applies silu to the up projection and multiplies by the gate: SwiGLU is not symmetric
#      in its two inputs (silu(gate) * up, as in Llama's MLP)
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
    e = tl.exp(-tl.abs(up))
    out = up * (tl.where(up >= 0, 1.0, e) / (1.0 + e)) * gate
    tl.store(out_ptr + offs, bf16_bits(out), mask=mask)


def fused_swiglu(gate, up):
    gate, up = gate.contiguous(), up.contiguous()
    out = torch.empty_like(gate)
    n = gate.numel()
    _swiglu_kernel[(triton.cdiv(n, BLOCK),)](gate, up, bf16_bits_view(out), n, BLOCK=BLOCK)
    return out
