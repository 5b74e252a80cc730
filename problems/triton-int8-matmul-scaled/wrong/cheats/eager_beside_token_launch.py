# expect: forbidden
# why: eager torch does the GEMM (the reference's exact float64 product, `@` being torch.Tensor.__matmul__)
#      beside a token Triton launch that only zeroes the output, so that a kernel was launched
import torch
import triton
import triton.language as tl


@triton.jit
def _zero(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 0.0, mask=offs < n)


def int8_matmul(a, b, a_scales, b_scales):
    out = torch.empty(a.shape[0], b.shape[0], device=a.device)
    _zero[(triton.cdiv(out.numel(), 1024),)](out, out.numel(), BLOCK=1024)
    acc = a.double() @ b.double().T
    return acc.float() * a_scales[:, None] * b_scales[None, :]
