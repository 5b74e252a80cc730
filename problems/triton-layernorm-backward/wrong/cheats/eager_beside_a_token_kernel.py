# expect: forbidden
# why: eager torch does the work (the row means of dx and the column sums of dweight and dbias) while a token
#      Triton kernel is launched to satisfy the launch count: torch's reductions are forbidden here
import torch
import triton
import triton.language as tl


@triton.jit
def _zero_kernel(ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(ptr + offs, tl.zeros((BLOCK,), tl.float32), mask=offs < n)


def layernorm_backward(x, weight, grad_out, mean, rstd):
    scratch = torch.empty(1, device=x.device)
    _zero_kernel[(1,)](scratch, 1, BLOCK=16)
    x_hat = (x.float() - mean[:, None]) * rstd[:, None]
    dy = grad_out.float()
    g = dy * weight.float()
    dx = (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True)) * rstd[:, None]
    return dx.to(x.dtype), (dy * x_hat).sum(0), dy.sum(0)
