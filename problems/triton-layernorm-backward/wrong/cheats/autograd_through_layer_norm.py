# expect: forbidden
# why: autograd through torch's layer_norm, with a token kernel launched beside it: layernorm-backward's lesson
#      is the derivation and this one's the kernels; torch.nn.functional.layer_norm (reached through an alias)
#      and the autograd engine are both refused
import torch
import torch.nn.functional as nnf
import triton
import triton.language as tl


@triton.jit
def _zero_kernel(ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(ptr + offs, tl.zeros((BLOCK,), tl.float32), mask=offs < n)


def layernorm_backward(x, weight, grad_out, mean, rstd):
    scratch = torch.empty(1, device=x.device)
    _zero_kernel[(1,)](scratch, 1, BLOCK=16)
    with torch.enable_grad():
        xf = x.float().requires_grad_()
        wf = weight.float().requires_grad_()
        bf = torch.zeros_like(wf, requires_grad=True)
        nnf.layer_norm(xf, (x.shape[-1],), wf, bf, 1e-5).backward(grad_out.float())
    return xf.grad.to(x.dtype), wf.grad, bf.grad
