# expect: forbidden
# why: launches a kernel that only fills the output with zeros, to satisfy the launch check, then computes
#      the product in eager torch without a matmul operator: every product of a row of x and a row of weight,
#      broadcast, summed over K. Right on every case, and no tile was multiplied: the kata's eager rule
#      (outside a launch, only allocation and views) refuses the widening copy it starts with
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
    return out + (x[:, None, :].float() * weight[None, :, :].float()).sum(-1)
