# expect: forbidden
# why: launches a kernel that only fills the output with zeros, to satisfy the launch check, then adds
#      torch's own product of the widened inputs: the GEMM is eager, not the kernel's. The matmul
#      operator and its tensor methods (@, .matmul, .mm) are forbidden at run time in this kata
import torch
import triton
import triton.language as tl


@triton.jit
def _zeros(out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.zeros((BLOCK,), dtype=tl.float32), mask=offsets < n)


def linear(x, weight):
    out = torch.empty(x.shape[0], weight.shape[0], dtype=torch.float32, device=x.device)
    _zeros[(triton.cdiv(out.numel(), 1024),)](out, out.numel(), BLOCK=1024)
    return out + x.float() @ weight.float().t()
